package cmdverify

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Manifests returns the manifests of the objects a kubectl command (argv) is about, built
// from the snapshot its finding came from, for an API server to hold while the command runs
// with --dry-run and for `kubectl patch --local -f`. Nodes are the snapshot's full objects;
// NodePools, NodeClaims, EC2NodeClasses, the amazon-vpc-cni ConfigMap and aws-node are built at
// their current API version from the fields the snapshot keeps (what a remedy patches is among
// them); a cilium-operator Deployment and a Pod it selects stand in for what `logs
// deploy/cilium-operator` reads. An object the snapshot does not hold is an error: a command
// about it would fail on the cluster the snapshot was taken of.
//
// The manifests of the objects the snapshot holds come back even with that error, so that the
// command can still run against them and the tool say what it makes of the missing one.
func Manifests(s *snapshot.Snapshot, argv []string) ([]map[string]any, error) {
	var out []map[string]any
	var errs []error
	for _, r := range Targets(argv) {
		objs, err := manifest(s, r)
		errs = append(errs, err)
		out = append(out, objs...)
	}
	return out, errors.Join(errs...)
}

func manifest(s *snapshot.Snapshot, r Ref) ([]map[string]any, error) {
	missing := fmt.Errorf("the snapshot holds no %s", r)
	switch r.Kind {
	case "Node":
		for _, n := range s.Nodes {
			if n.Name == r.Name {
				return []map[string]any{nodeManifest(n)}, nil
			}
		}
	case "NodePool":
		for _, p := range s.NodePools {
			if p.Name == r.Name {
				return []map[string]any{nodePoolManifest(p)}, nil
			}
		}
	case "NodeClaim":
		for _, c := range s.NodeClaims {
			if c.Name == r.Name {
				return []map[string]any{nodeClaimManifest(c)}, nil
			}
		}
	case "EC2NodeClass", "NodeClass":
		for _, c := range s.NodeClasses {
			if c.Name == r.Name && c.KindName() == r.Kind {
				return []map[string]any{nodeClassManifest(c)}, nil
			}
		}
	case "ConfigMap":
		// A snapshot that does not say whether the ConfigMap was found (VPCCNIConfigState "")
		// is taken to have it, as the remedies do.
		if r.Namespace == "kube-system" && r.Name == "amazon-vpc-cni" && s.VPCCNIConfigState != snapshot.ConfigMapNotFound {
			return []map[string]any{{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": r.Name, "namespace": r.Namespace}, "data": stringMap(s.VPCCNIConfig)}}, nil
		}
		if r.Namespace == "kube-system" && r.Name == "cilium-config" && s.Cilium != nil && s.Cilium.ConfigRead {
			return []map[string]any{{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": r.Name, "namespace": r.Namespace}, "data": stringMap(s.Cilium.Config)}}, nil
		}
	case "DaemonSet":
		if r.Namespace == "kube-system" && r.Name == "aws-node" && s.AWSNode != nil {
			return []map[string]any{awsNodeManifest(s.AWSNode)}, nil
		}
	case "Deployment":
		if r.Namespace == "kube-system" && r.Name == "cilium-operator" && s.Cilium != nil {
			return standInDeployment(r.Namespace, r.Name), nil
		}
	case "Pod":
		for _, p := range s.PolicyAgentPods {
			if r.Namespace == "kube-system" && p.Name == r.Name {
				return standInPod(r.Namespace, r.Name, "aws-node", snapshot.NodeAgentContainer), nil
			}
		}
		for _, a := range s.Agents {
			for _, p := range a.Pods {
				if r.Namespace == "kube-system" && p.Name == r.Name {
					return standInPod(r.Namespace, r.Name, a.Name), nil
				}
			}
		}
	}
	return nil, missing
}

// standInPod is a kube-system pod karpnet read with the given containers, and its service
// account, for `kubectl logs POD -c CONTAINER`.
func standInPod(namespace, name string, containers ...string) []map[string]any {
	var specs []any
	for _, c := range containers {
		specs = append(specs, map[string]any{"name": c, "image": "public.ecr.aws/docker/library/busybox:1.37"})
	}
	return []map[string]any{
		{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "aws-node", "namespace": namespace}},
		{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "namespace": namespace},
			"spec": map[string]any{"serviceAccountName": "aws-node", "automountServiceAccountToken": false, "containers": specs}},
	}
}

// stringMap returns m as a JSON object, empty (not null) when m is nil.
func stringMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// toMap round-trips v through JSON.
func toMap(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic("cmdverify: encoding a manifest: " + err.Error())
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic("cmdverify: decoding a manifest: " + err.Error())
	}
	return out
}

// nodeManifest is the snapshot's Node without what the API server sets.
func nodeManifest(n corev1.Node) map[string]any {
	n = *n.DeepCopy()
	n.TypeMeta.APIVersion, n.TypeMeta.Kind = "v1", "Node"
	n.ResourceVersion, n.UID, n.Generation, n.ManagedFields = "", "", 0, nil
	n.CreationTimestamp, n.DeletionTimestamp, n.DeletionGracePeriodSeconds = metav1.Time{}, nil, nil
	n.OwnerReferences = nil
	m := toMap(n).(map[string]any)
	delete(m["metadata"].(map[string]any), "creationTimestamp")
	return m
}

// classRef is a Karpenter v1 nodeClassRef, with the group and kind a v1beta1 one left out.
func classRef(r snapshot.NodeClassRef) map[string]any {
	group, kind := r.Group, r.Kind
	if group == "" {
		group = snapshot.AWSGroup
	}
	if kind == "" {
		kind = snapshot.KindEC2NodeClass
	}
	return map[string]any{"group": group, "kind": kind, "name": r.Name}
}

func nodePoolManifest(p snapshot.NodePool) map[string]any {
	reqs := []any{}
	for _, r := range p.Requirements {
		reqs = append(reqs, toMap(r))
	}
	spec := map[string]any{"nodeClassRef": classRef(p.NodeClassRef), "requirements": reqs}
	if len(p.Taints) > 0 {
		spec["taints"] = toMap(p.Taints)
	}
	if len(p.StartupTaints) > 0 {
		spec["startupTaints"] = toMap(p.StartupTaints)
	}
	template := map[string]any{"spec": spec}
	if len(p.Labels) > 0 {
		template["metadata"] = map[string]any{"labels": stringMap(p.Labels)}
	}
	poolSpec := map[string]any{"template": template}
	if d := p.Disruption; d != nil {
		disruption := map[string]any{}
		if d.ConsolidationPolicy != "" {
			disruption["consolidationPolicy"] = d.ConsolidationPolicy
		}
		if d.ConsolidateAfter != "" {
			disruption["consolidateAfter"] = d.ConsolidateAfter
		}
		if len(d.Budgets) > 0 {
			disruption["budgets"] = toMap(d.Budgets)
		}
		if d.ExpireAfter != "" {
			spec["expireAfter"] = d.ExpireAfter
		}
		poolSpec["disruption"] = disruption
	}
	return map[string]any{"apiVersion": snapshot.KarpenterGroup + "/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": p.Name}, "spec": poolSpec}
}

func nodeClaimManifest(c snapshot.NodeClaim) map[string]any {
	reqs := []any{}
	// The labels Karpenter's scheduler put on the claim are the requirements it was made for.
	for _, k := range slices.Sorted(maps.Keys(c.Labels)) {
		if k == corev1.LabelInstanceTypeStable || k == corev1.LabelTopologyZone || k == snapshot.LabelNodePool {
			reqs = append(reqs, map[string]any{"key": k, "operator": "In", "values": []any{c.Labels[k]}})
		}
	}
	meta := map[string]any{"name": c.Name}
	if len(c.Labels) > 0 {
		meta["labels"] = stringMap(c.Labels)
	}
	return map[string]any{"apiVersion": snapshot.KarpenterGroup + "/v1", "kind": "NodeClaim", "metadata": meta,
		"spec": map[string]any{"nodeClassRef": classRef(c.NodeClassRef), "requirements": reqs}}
}

// selectorTerms are a class's selector terms; a term with nothing set selects by the tag
// karpenter.sh/discovery, as a class made by Karpenter's getting-started guide does.
func selectorTerms(terms []snapshot.SelectorTerm) []any {
	out := []any{}
	for _, t := range terms {
		out = append(out, toMap(t))
	}
	if len(out) == 0 {
		out = append(out, map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "cluster"}})
	}
	return out
}

func nodeClassManifest(c snapshot.EC2NodeClass) map[string]any {
	spec := map[string]any{
		"role":                       "KarpenterNodeRole-cluster",
		"subnetSelectorTerms":        selectorTerms(c.SubnetSelectorTerms),
		"securityGroupSelectorTerms": selectorTerms(c.SecurityGroupSelectorTerms),
	}
	if c.AutoMode() {
		return map[string]any{"apiVersion": snapshot.AutoModeGroup + "/v1", "kind": snapshot.KindNodeClass,
			"metadata": map[string]any{"name": c.Name}, "spec": spec}
	}
	spec["amiSelectorTerms"] = []any{map[string]any{"alias": "al2023@latest"}}
	if c.AssociatePublicIPAddress != nil {
		spec["associatePublicIPAddress"] = *c.AssociatePublicIPAddress
	}
	if len(c.NetworkInterfaces) > 0 {
		spec["networkInterfaces"] = toMap(c.NetworkInterfaces)
	}
	if c.PlacementGroupSelector != nil {
		spec["placementGroupSelector"] = toMap(c.PlacementGroupSelector)
	}
	if k := c.Kubelet; k != nil && (k.MaxPods != nil || k.PodsPerCore != nil) {
		kubelet := map[string]any{}
		if k.MaxPods != nil {
			kubelet["maxPods"] = *k.MaxPods
		}
		if k.PodsPerCore != nil {
			kubelet["podsPerCore"] = *k.PodsPerCore
		}
		spec["kubelet"] = kubelet
	}
	return map[string]any{"apiVersion": snapshot.AWSGroup + "/v1", "kind": snapshot.KindEC2NodeClass,
		"metadata": map[string]any{"name": c.Name}, "spec": spec}
}

// awsNodeManifest is the aws-node DaemonSet with its image and environment.
func awsNodeManifest(a *snapshot.AWSNode) map[string]any {
	env := []any{}
	for _, k := range slices.Sorted(maps.Keys(a.Env)) {
		env = append(env, map[string]any{"name": k, "value": a.Env[k]})
	}
	image := a.Image
	if image == "" {
		image = "amazon-k8s-cni:v1.23.0"
	}
	labels := map[string]any{"k8s-app": "aws-node"}
	return map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet",
		"metadata": map[string]any{"name": "aws-node", "namespace": "kube-system", "labels": labels},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"hostNetwork": true, "containers": []any{
					map[string]any{"name": "aws-node", "image": image, "env": env}}}}}}
}

// standInDeployment is a Deployment and a Pod it selects, with the pod's service account, for
// `kubectl logs deploy/NAME`.
func standInDeployment(namespace, name string) []map[string]any {
	labels := map[string]any{"app.kubernetes.io/name": name}
	container := []any{map[string]any{"name": name, "image": "registry.invalid/" + name + ":v0"}}
	podSpec := map[string]any{"serviceAccountName": name, "automountServiceAccountToken": false, "containers": container}
	return []map[string]any{
		{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name, "namespace": namespace}},
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": name, "namespace": namespace},
			"spec": map[string]any{"selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": podSpec}}},
		{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name + "-0", "namespace": namespace, "labels": labels},
			"spec": podSpec},
	}
}
