package diagnose

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// SubjectDeployment is a Deployment of kube-system (deployment/kube-system/coredns).
const SubjectDeployment = kinds.Deployment

// coreDNSResource is the CoreDNS Deployment.
const coreDNSResource = "deployment/kube-system/coredns"

// resolverPPS is how many packets a second the Amazon DNS server takes from one network
// interface.
const resolverPPS = 1024

var specCoreDNSConcentrated = &Spec{
	ID:       "coredns-replicas-concentrated",
	Severity: Warning,
	Lower:    []Severity{Info},
	Family:   FamilyNodeAgents,
	Needs:    []string{snapshot.SourceCoreDNSPods},
	Examines: []string{SubjectDeployment},
	Title:    "every CoreDNS replica runs on one node, or in one zone",
	FiresWhen: "two or more CoreDNS pods (kube-system, `k8s-app=kube-dns`) are scheduled and all on one node (warning), " +
		"or all in one zone while the cluster's nodes span several (info)",
	NotOn: "replicas spread over nodes in several zones; a single replica; a cluster whose nodes are all in one zone " +
		"(for the zone rule); pods not scheduled yet, or finished",
	Why: "CoreDNS forwards what it does not serve to the VPC's Amazon DNS server, which answers at most 1,024 packets a " +
		"second from each network interface: replicas stacked on one node share its interfaces and their ceiling, and " +
		"the node's loss stops the cluster's DNS; replicas in one zone stop with the zone",
	Remedy: "spread the replicas: topologySpreadConstraints (or pod anti-affinity) over `kubernetes.io/hostname` and " +
		"`topology.kubernetes.io/zone` in the coredns Deployment (the EKS add-on's configuration values), then restart its " +
		"rollout",
	Sources: []string{
		"https://repost.aws/knowledge-center/vpc-find-cause-of-failed-dns-queries (Amazon-provided DNS servers enforce 1,024 packets per second per network interface)",
		"https://docs.aws.amazon.com/whitepapers/latest/hybrid-cloud-dns-options-for-vpc/constraints.html (the per-interface limit is a hard limit)",
		"aws/containers-roadmap#2530 (CoreDNS replicas on one node hit the per-interface limit)",
	},
	Verified: []Verified{
		{UpstreamAWSDocs, "https://repost.aws/knowledge-center/vpc-find-cause-of-failed-dns-queries",
			"Amazon-provided DNS servers enforce a limit of 1024 packets per second per elastic network interface and reject traffic over it"},
		{UpstreamAWSDocs, "whitepapers/latest/hybrid-cloud-dns-options-for-vpc/constraints.html (Packet per second per elastic network interface limit)",
			"each network interface in a VPC has a hard limit of 1024 packets a second it can send to the Amazon-provided DNS server"},
	},
}

// coreDNSConcentrated finds CoreDNS replicas that are all on one node or in one zone. Every
// query CoreDNS does not answer from its cache goes to the VPC's resolver, which takes at most
// 1,024 packets a second from one network interface: replicas stacked on one node share that
// node's interfaces, and lose the cluster its DNS with the node; replicas in one zone stop with
// the zone.
var coreDNSConcentrated = Check{
	Spec: specCoreDNSConcentrated,
	Run: func(x *Index) []Finding {
		var names, nodes []string
		for _, p := range x.Snapshot.CoreDNS {
			if p.Node == "" || p.Phase == string(corev1.PodSucceeded) || p.Phase == string(corev1.PodFailed) {
				continue
			}
			names = append(names, p.Name)
			if !slices.Contains(nodes, p.Node) {
				nodes = append(nodes, p.Node)
			}
		}
		if len(names) < 2 {
			return nil
		}
		slices.Sort(names)
		list := readOnlyCoreDNS()
		if len(nodes) == 1 {
			return []Finding{{
				Resource: coreDNSResource,
				Message: fmt.Sprintf("all %d CoreDNS replicas (%s) run on node %s: they share its network interfaces, from "+
					"each of which the VPC's Amazon DNS server takes at most %d packets a second, and the node's loss stops "+
					"the cluster's DNS", len(names), abbreviate(names, 3), nodes[0], resolverPPS),
				Remedy:   coreDNSRemedy,
				Commands: list,
			}}
		}
		zones := nodeZones(x)
		var podZones []string
		for _, n := range nodes {
			z := zones[n]
			if z == "" {
				return nil // a replica's zone is unknown
			}
			if !slices.Contains(podZones, z) {
				podZones = append(podZones, z)
			}
		}
		clusterZones := map[string]bool{}
		for _, z := range zones {
			clusterZones[z] = true
		}
		if len(podZones) > 1 || len(clusterZones) < 2 {
			return nil
		}
		return []Finding{{
			Severity: Info,
			Resource: coreDNSResource,
			Message: fmt.Sprintf("all %d CoreDNS replicas run in zone %s (on %d nodes: %s) while the cluster's nodes span %d "+
				"zones: the zone's loss stops the cluster's DNS", len(names), podZones[0], len(nodes),
				abbreviate(slices.Sorted(slices.Values(nodes)), 3), len(clusterZones)),
			Remedy:   coreDNSRemedy,
			Commands: list,
		}}
	},
}

// coreDNSRemedy says how to spread CoreDNS.
const coreDNSRemedy = "spread the replicas over nodes and zones: topologySpreadConstraints (or pod anti-affinity) over " +
	"kubernetes.io/hostname and topology.kubernetes.io/zone in the coredns Deployment (with the EKS add-on, its " +
	"configuration values), then restart its rollout; the read-only command shows where they run"

// readOnlyCoreDNS lists the CoreDNS pods with their nodes.
func readOnlyCoreDNS() []Command {
	return []Command{{Argv: []string{"kubectl", "-n", "kube-system", "get", "pods", "-l", snapshot.CoreDNSSelector, "-o", "wide"},
		ReadOnly: true}}
}

// nodeZones maps every node's name to its zone label.
func nodeZones(x *Index) map[string]string {
	out := make(map[string]string, len(x.Nodes))
	for _, n := range x.Nodes {
		if z := strings.TrimSpace(n.Node.Labels[corev1.LabelTopologyZone]); z != "" {
			out[n.Name()] = z
		}
	}
	return out
}
