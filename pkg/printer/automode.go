package printer

import (
	"strconv"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// autoCapacity writes the pod capacity of an EKS Auto Mode node: capacity.pods is the figure
// EKS set, and the IP capacity only karpnet's estimate of a formula EKS does not publish.
func autoCapacity(t *text, c *diagnose.CapacityReport, ips PodIPs) {
	estimate := strconv.FormatInt(ips.IPs, 10)
	if ips.Estimate {
		estimate = "about " + estimate + " (estimate)"
	}
	t.kvs(indent, []kv{
		{"capacity.pods", strconv.FormatInt(c.Pods, 10) + " (set by EKS Auto Mode)"},
		{ips.Label, estimate},
		{"Formula", orUnknown(c.Formula)},
		{"Default-card ENIs", strconv.Itoa(int(c.DefaultCardENIs))},
		{"IPv4 per ENI", strconv.Itoa(int(c.IPv4PerENI))},
		{"EFA-only on card 0", strconv.Itoa(int(c.EFAOnlyOnCard0))},
		{"Usable ENIs", strconv.Itoa(int(c.UsableENIs))},
		{"ENIs attached", strconv.Itoa(c.ENIsAttached) + " on the default card"},
	})
}

// autoMode writes the pod networking an EKS Auto Mode node gets from its NodeClass.
func autoMode(t *text, a *diagnose.AutoModeReport) {
	t.header("Auto Mode pod networking")
	if a == nil {
		t.para(indent, noData)
		return
	}
	if a.IPMode == "" {
		t.para(indent, "unknown (NodeClass "+orUnknown(a.NodeClass)+" not read)")
		return
	}
	podSubnets := "none: pods take addresses from the node subnets of the zone"
	pairs := []kv{{"IP mode", a.IPMode}}
	if len(a.PodSubnetSelectorTerms) > 0 {
		podSubnets = strings.Join(a.PodSubnetSelectorTerms, "; ")
		pairs = append(pairs,
			kv{"Pod subnet terms", podSubnets},
			kv{"Pod subnets in zone", orNone(strings.Join(a.PodSubnets, ", "))},
			kv{"Pod SG terms", orNone(strings.Join(a.PodSecurityGroupSelectorTerms, "; "))},
		)
	} else {
		pairs = append(pairs, kv{"Pod subnet terms", podSubnets})
	}
	if a.StaticInterfaces > 0 {
		pairs = append(pairs, kv{"Static interfaces", strconv.Itoa(a.StaticInterfaces) +
			" (no addresses are added after launch)"})
	}
	t.kvs(indent, pairs)
}
