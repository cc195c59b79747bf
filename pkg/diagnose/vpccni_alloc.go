package diagnose

import (
	"fmt"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// allocationWindow is how far back before the snapshot a sandbox failure still counts.
const allocationWindow = time.Hour

// allocationFailureTexts are the messages of the VPC CNI (and the EC2 errors it passes on) when
// it has no IP for a pod.
var allocationFailureTexts = [...]string{
	"failed to assign an IP address to container",
	"no available IP addresses",
	"InsufficientCidrBlocks",
}

// maxNamedPods is how many pods a finding names before "and N more".
const maxNamedPods = 3

// The evidence rule of pod-ip-allocation-failures. kubelet retries a pod's sandbox with a
// growing backoff, and every failed try is an event: a pod with repeatedFailures or more
// failures kept failing, and one whose last failure is within stillFailingWindow of the
// snapshot is failing now.
const (
	repeatedFailures   = 3
	stillFailingWindow = 5 * time.Minute
	// eventClockSkew is how far after the snapshot an event may be dated and still count:
	// kubelets' clocks and karpnet's differ a little. Anything later (a forged or misdated
	// event, say from 2099) is left out.
	eventClockSkew = time.Minute
)

var specPodIPAllocationFailures = &Spec{
	ID:       "pod-ip-allocation-failures",
	Severity: Critical,
	Lower:    []Severity{Warning, Info},
	Family:   FamilyVPCCNI,
	Needs:    []string{snapshot.SourceEvents},
	Examines: []string{SubjectNode},
	Title:    "pods on the node failed to get an IP address from the VPC CNI",
	FiresWhen: "the node has FailedCreatePodSandBox events in the last hour saying the CNI failed to assign an " +
		"IP (\"failed to assign an IP address to container\", \"no available IP addresses\", " +
		"\"InsufficientCidrBlocks\")",
	NotOn: "events older than an hour or without a time; severity follows the evidence: critical while a pod " +
		"keeps failing (3 or more failures, the last within 5 minutes), warning once it stopped, info " +
		"when no pod failed more than twice (a pod waiting for its branch ENI, a burst), info at most on " +
		"a node that is still initialising",
	Why: "pods stay in ContainerCreating: ENIs full, subnet exhausted or fragmented, or no ENIConfig",
	Remedy: "compare capacity.pods with IP capacity and the pod subnet's free addresses (`kubectl karpnet " +
		"describe node`), read ipamd.log; for InsufficientCidrBlocks reserve prefix space with `aws ec2 " +
		"create-subnet-cidr-reservation --reservation-type prefix`",
	Sources: []string{
		"aws/amazon-vpc-cni-k8s pkg/ipamd/rpc_handler.go",
		"aws/amazon-vpc-cni-k8s cmd/routed-eni-cni-plugin/cni.go",
		"aws/amazon-vpc-cni-k8s#3494",
		"aws/amazon-vpc-cni-k8s#330",
	},
	Verified: []Verified{
		{UpstreamVPCCNI, "cmd/routed-eni-cni-plugin/cni.go (add)",
			"When ipamd answers AddNetwork with Success false, the CNI plugin fails the sandbox with \"add cmd: failed to assign an IP address to container\"."},
		{UpstreamVPCCNI, "pkg/ipamd/rpc_handler.go (AddNetwork)",
			"ipamd replies Success false with no error when it could not assign an address, so the plugin's text is the one kubelet's event carries."},
		{UpstreamVPCCNI, "pkg/ipamd/datastore/data_store.go (ErrNoAvailableIPInDataStore)",
			"An empty pool is \"AssignPodIPAddress: no available IP/Prefix addresses\", written to ipamd's log."},
		{UpstreamVPCCNI, "pkg/ipamd/ipamd.go (INSUFFICIENT_CIDR_BLOCKS, insufficientCidrErrorCooldown)",
			"EC2's InsufficientCidrBlocks (no contiguous /28 left in the subnet) makes ipamd back off 120 s before asking again."},
	},
}

// podIPAllocationFailures finds nodes where kubelet could not start pods in the last hour
// because the VPC CNI had no IP address for them. Those pods stay in ContainerCreating: the
// node's ENIs are full (max pods above the IP capacity), the subnet is exhausted or, with
// prefix delegation, too fragmented for a /28, or custom networking has no ENIConfig. EKS
// Auto Mode's own CNI reports the same message; there the causes are its pod subnets (another
// zone, exhausted), fragmentation, or static networkInterfaces with no IPs for pods.
//
// The severity follows the evidence: critical while a pod keeps failing (repeatedFailures or
// more failures, the last within stillFailingWindow), warning when a pod failed repeatedly
// but has stopped, and info when every pod failed once or twice, which is normal while a pod
// with a SecurityGroupPolicy waits for its branch ENI or during a burst of new pods, and
// which a retry fixes. On a node that is still initialising it is info at most. Events dated
// after the snapshot (beyond a minute of clock skew) are left out.
var podIPAllocationFailures = Check{
	Spec: specPodIPAllocationFailures,
	Run: func(x *Index) []Finding {
		byNode := map[string][]snapshot.SandboxFailure{}
		since, until := x.Snapshot.Taken.Add(-allocationWindow), x.Snapshot.Taken.Add(eventClockSkew)
		for _, f := range x.Snapshot.SandboxFailures {
			if f.LastSeen.After(since) && !f.LastSeen.After(until) && isAllocationFailure(f.Message) {
				byNode[f.Node] = append(byNode[f.Node], f)
			}
		}
		var out []Finding
		for _, n := range x.checkedNodes() {
			if fs := byNode[n.Name()]; len(fs) > 0 {
				out = append(out, allocationFinding(n, fs, x.Snapshot.Taken))
			}
		}
		return out
	},
}

// isAllocationFailure reports whether a sandbox failure message says the pod got no IP.
func isAllocationFailure(msg string) bool {
	for _, t := range allocationFailureTexts {
		if strings.Contains(strings.ToLower(msg), strings.ToLower(t)) {
			return true
		}
	}
	return false
}

// podFailures is what the events say of one pod: how often its sandbox failed, and when.
type podFailures struct {
	pod         string
	count       int64
	first, last time.Time
}

// byPod sums a node's sandbox failures per pod, sorted by pod.
func byPod(fs []snapshot.SandboxFailure) []podFailures {
	m := map[string]*podFailures{}
	for _, f := range fs {
		key := f.Namespace + "/" + f.Pod
		p := m[key]
		if p == nil {
			p = &podFailures{pod: key}
			m[key] = p
		}
		p.count += int64(max(f.Count, 1))
		first := f.FirstSeen
		if first.IsZero() {
			first = f.LastSeen
		}
		if p.first.IsZero() || first.Before(p.first) {
			p.first = first
		}
		if f.LastSeen.After(p.last) {
			p.last = f.LastSeen
		}
	}
	out := make([]podFailures, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, *m[k])
	}
	return out
}

// allocationVerdict rates a node's failures by the evidence rule and returns the severity and
// the sentence that shows why, naming the pod that decides it.
func allocationVerdict(pods []podFailures, taken time.Time) (Severity, string) {
	var failing, repeated *podFailures
	for i := range pods {
		p := &pods[i]
		if p.count < repeatedFailures {
			continue
		}
		if taken.Sub(p.last) <= stillFailingWindow && (failing == nil || p.count > failing.count) {
			failing = p
		}
		if repeated == nil || p.count > repeated.count {
			repeated = p
		}
	}
	span := func(p *podFailures) string {
		return fmt.Sprintf("%s failed %d times from %s to %s", p.pod, p.count,
			p.first.UTC().Format(time.TimeOnly), p.last.UTC().Format(time.TimeOnly))
	}
	switch {
	case failing != nil:
		return Critical, fmt.Sprintf("still failing: %s, the last %s before the snapshot", span(failing), ago(taken.Sub(failing.last)))
	case repeated != nil:
		return Warning, fmt.Sprintf("failed repeatedly but not in the last %s: %s", ago(stillFailingWindow), span(repeated))
	}
	return Info, fmt.Sprintf("no pod failed more than %d times, which a pod waiting for its branch ENI or a burst of new "+
		"pods causes and a retry fixes", repeatedFailures-1)
}

// allocationFinding summarises a node's sandbox failures: how many, which pods, the evidence
// that sets the severity, and the newest message.
func allocationFinding(n *NodeInfo, fs []snapshot.SandboxFailure, taken time.Time) Finding {
	newest := fs[0]
	for _, f := range fs {
		if f.LastSeen.After(newest.LastSeen) || f.LastSeen.Equal(newest.LastSeen) && f.Message < newest.Message {
			newest = f
		}
	}
	pods := byPod(fs)
	var count int64
	names := make([]string, len(pods))
	for i, p := range pods {
		count += p.count
		names[i] = p.pod
	}
	sev, evidence := allocationVerdict(pods, taken)
	if n.Initialising() && sev > Info {
		sev, evidence = Info, fmt.Sprintf("the node is still initialising (%s), when pods wait for the CNI; %s", n.StateReason, evidence)
	}
	cniName := "the VPC CNI"
	if n.AutoMode() {
		cniName = "the Auto Mode CNI"
	}
	podList := strings.Join(names[:min(len(names), maxNamedPods)], ", ")
	if len(names) > maxNamedPods {
		podList += fmt.Sprintf(" and %d more", len(names)-maxNamedPods)
	}
	return Finding{
		Severity: sev,
		Node:     n.Name(),
		Resource: nodeRef(n.Name()),
		Message: fmt.Sprintf("%s in the hour before %s for %s (%s) because %s had no IP address; %s; newest at %s: %s",
			countText(count, "FailedCreatePodSandBox event", "FailedCreatePodSandBox events"), taken.UTC().Format(time.RFC3339), countText(len(names), "pod", "pods"), podList,
			cniName, evidence, newest.LastSeen.UTC().Format(time.RFC3339), newest.Message),
		Remedy:   allocationRemedy(n, newest.Message),
		Commands: []Command{{Argv: []string{"kubectl", "karpnet", "describe", "node", n.Name()}, ReadOnly: true}},
	}
}

// allocationRemedy says where to look, by the cause the message names.
func allocationRemedy(n *NodeInfo, msg string) string {
	const describe = "the command shows the node's capacity and subnets"
	if n.AutoMode() {
		return autoAllocationRemedy(n, msg, describe)
	}
	if strings.Contains(msg, "InsufficientCidrBlocks") {
		return "the pod subnet has free addresses but no free contiguous /28 for a prefix: reserve prefix space in it " +
			"(EC2 CreateSubnetCidrReservation, reservation type prefix; subnet-prefix-fragmented names the free run when " +
			"karpnet read the subnet's addresses), or give pods a new subnet; " + describe
	}
	return fmt.Sprintf("compare the node's capacity.pods with its pod IP capacity and the free addresses of its pod subnet "+
		"(%s), then read ipamd's log on the node (/var/log/aws-routed-eni/ipamd.log) for the EC2 error; "+
		"lower kubelet maxPods, free or add subnet space, or fix the node's ENIConfig accordingly", describe)
}

// autoAllocationRemedy says where an EKS Auto Mode node's pod addresses come from and what to
// change: there is no ipamd log or ENIConfig to look at.
func autoAllocationRemedy(n *NodeInfo, msg, describe string) string {
	class := "its NodeClass"
	if n.ClassName != "" {
		class = n.ClassLabel()
	}
	if strings.Contains(msg, "InsufficientCidrBlocks") {
		return fmt.Sprintf("the pod subnet has free addresses but no free contiguous /28: set "+
			"spec.advancedNetworking.ipv4PrefixSize: \"32\" on %s for secondary IPs, reserve prefix space in it (EC2 "+
			"CreateSubnetCidrReservation, reservation type prefix), or add subnets; %s", class, describe)
	}
	return fmt.Sprintf("check the free addresses of the node's subnets and, when %s sets spec.podSubnetSelectorTerms, "+
		"that they select a subnet in the node's zone with free addresses (%s); with static "+
		"spec.advancedNetworking.networkInterfaces give the primary interface secondaryIPv4PrefixCount, as Auto Mode "+
		"adds no addresses after launch", class, describe)
}
