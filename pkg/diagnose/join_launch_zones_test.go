package diagnose

import (
	"fmt"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// subnetFullB is a full subnet in us-west-2b that the default class selects next to subnetA.
const subnetFullB = "subnet-0bbb2222cccc3333d"

// withSubnetB adds subnetFullB, 0 addresses free, to the default class.
func withSubnetB(s *snapshot.Snapshot) {
	s.Subnets = append(s.Subnets, snapshot.Subnet{ID: subnetFullB, CIDR: "10.0.2.0/24", Zone: "us-west-2b",
		ZoneID: "usw2-az2", AvailableIPs: 0})
	s.NodeClasses[0].StatusSubnets = append(s.NodeClasses[0].StatusSubnets,
		snapshot.SubnetStatus{ID: subnetFullB, Zone: "us-west-2b", ZoneID: "usw2-az2"})
}

// iceEvents adds n InsufficientCapacityError events on deleted NodeClaims of NodePool default,
// the newest ago before the snapshot, each a minute older, quoting the fleet errors errs.
func iceEvents(n int, ago time.Duration, errs string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		for i := range n {
			name := fmt.Sprintf("default-zz%03d", i)
			s.Events = append(s.Events, snapshot.KubeEvent{Kind: "NodeClaim", Name: name, Type: "Warning",
				Reason: reasonICEEvent, Count: 1, Last: s.Taken.Add(-ago - time.Duration(i)*time.Minute),
				Message: "NodeClaim " + name + " event: creating instance, insufficient capacity, with fleet error(s), " + errs})
		}
	}
}

// The fleet errors as EC2 and Karpenter write them.
const (
	errSubnetBFull = "InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet '" + subnetFullB +
		"' to satisfy the requested number of instances."
	errICEm5B = "InsufficientInstanceCapacity: We currently do not have sufficient m5.large capacity in the " +
		"Availability Zone you requested (us-west-2b). Our system will be working on provisioning additional capacity. " +
		"You can currently get m5.large capacity by not specifying an Availability Zone in your request or choosing us-west-2a."
)

// zonalShift adds a zonal shift event on NodePool default.
func zonalShift(reason string, ago time.Duration) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) {
		verb := "detected: offerings in zone us-west-2b (usw2-az2) are unavailable"
		if reason == reasonZonalShiftCleared {
			verb = "cleared: offerings in zone us-west-2b (usw2-az2) are restored"
		}
		s.Events = append(s.Events, snapshot.KubeEvent{Kind: "NodePool", Name: "default", Reason: reason,
			Message: "Zonal shift " + verb + " for this NodePool", Count: 1, Last: s.Taken.Add(-ago)})
	}
}

func TestLaunchFailuresByZone(t *testing.T) {
	subnetRemedy := "add subnets with free addresses in us-west-2b to the spec.subnetSelectorTerms of EC2NodeClass default " +
		"(Karpenter launches into the roomiest subnet of each zone and sets a full one aside for 3 minutes only), or free " +
		"addresses in subnet-0bbb2222cccc3333d (see instance-orphaned and eni-leaked for what holds them)"
	iceRemedy := "let NodePool default admit more instance types (karpenter.k8s.aws/instance-family, instance-category, " +
		"instance-generation) or other zones, so EC2 Fleet finds capacity elsewhere; Karpenter sets the type aside in " +
		"us-west-2b for 3 minutes after each error"
	eventsCmd := []Command{{Argv: []string{"kubectl", "get", "events", "-A", "--field-selector",
		"involvedObject.kind=NodeClaim,reason=InsufficientCapacityError"}, ReadOnly: true}}
	shiftText := "an ARC zonal shift away from us-west-2b (usw2-az2) is active for NodePool default: Karpenter takes the " +
		"zone's offerings out of those NodePools while it lasts"
	shiftRemedy := "nothing for the zonal shift while it lasts (Karpenter announces its end with a ZonalShiftCleared " +
		"event), as long as the NodePools admit other zones (topology.kubernetes.io/zone)"
	runCheckCases(t, launchFailuresByZone, []checkCase{
		{name: "healthy cluster is silent"},
		{name: "one transient failure is silent", edit: edits(withSubnetB, iceEvents(1, time.Minute, errSubnetBFull))},
		{name: "two failures stay below the threshold", edit: edits(withSubnetB, iceEvents(2, time.Minute, errICEm5B))},
		{name: "failures older than the hour are silent", edit: edits(withSubnetB, iceEvents(5, 61*time.Minute, errSubnetBFull))},
		{name: "account limits name no zone", edit: iceEvents(5, time.Minute, "VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 32 allows")},
		{name: "a cleared zonal shift is silent", edit: edits(zonalShift(reasonZonalShiftActive, 20*time.Minute), zonalShift(reasonZonalShiftCleared, 5*time.Minute))},
		{
			name: "a full subnet and no capacity in one zone make one finding",
			edit: edits(withSubnetB, iceEvents(12, 2*time.Minute, errSubnetBFull), func(s *snapshot.Snapshot) {
				iceEvents(2, 30*time.Minute, errICEm5B)(s)
				s.Events[len(s.Events)-1].Name, s.Events[len(s.Events)-2].Name = "default-yy001", "default-yy002"
			}),
			want: []Finding{{ID: "launch-failures-by-zone", Severity: Warning, Resource: "zone/us-west-2b",
				Message: "zone us-west-2b: 14 NodeClaims failed to launch there in the last hour (the last 2m ago), 12 of " +
					"them on full subnet subnet-0bbb2222cccc3333d (10.0.2.0/24, 0 free of 251 usable) (InsufficientFreeAddressesInSubnet), " +
					"2 of them InsufficientInstanceCapacity for m5.large (NodePool default)",
				Remedy: subnetRemedy + "; " + iceRemedy + "; the command lists the failures' events", Commands: eventsCmd}},
		},
		{
			name: "a NodeClaim still failing counts in its zone once",
			edit: edits(withSubnetB, iceEvents(2, time.Minute, errSubnetBFull),
				unjoined(2*time.Minute, false, cond(condLaunched, "Unknown", codeSubnetFull, "Error creating fleet request: "+errSubnetBFull, 2*time.Minute)),
				claimEvent(reasonICEEvent, "NodeClaim "+claimB+" event: "+errSubnetBFull, 3*time.Minute)),
			want: []Finding{{ID: "launch-failures-by-zone", Severity: Warning, Resource: "zone/us-west-2b",
				Message: "zone us-west-2b: 3 NodeClaims failed to launch there in the last hour (the last 1m ago), 3 of " +
					"them on full subnet subnet-0bbb2222cccc3333d (10.0.2.0/24, 0 free of 251 usable) (InsufficientFreeAddressesInSubnet) " +
					"(NodePool default)",
				Remedy: subnetRemedy + "; the command lists the failures' events", Commands: eventsCmd}},
		},
		{
			name: "an active zonal shift alone is info",
			edit: zonalShift(reasonZonalShiftActive, 10*time.Minute),
			want: []Finding{{ID: "launch-failures-by-zone", Severity: Info, Resource: "zone/us-west-2b",
				Message: "zone us-west-2b: " + shiftText, Remedy: shiftRemedy}},
		},
	})
}

func TestPoolOfClaimName(t *testing.T) {
	s := healthy()
	s.NodePools = append(s.NodePools, snapshot.NodePool{Name: "default-gpu"})
	x := NewIndex(s)
	for name, want := range map[string]string{"default-x7k2p": "default", "default-gpu-x7k2p": "default-gpu", "other-x7k2p": "", "default-": ""} {
		if got := x.poolOfClaimName(name); got != want {
			t.Errorf("poolOfClaimName(%q) = %q, want %q", name, got, want)
		}
	}
}
