package collect

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

var (
	benchEC2Sizes  = flag.String("ec2.sizes", "5000,10000,100000", "node counts of BenchmarkEC2Read, comma-separated")
	benchEC2Replay = flag.Bool("ec2.replay", true, "BenchmarkEC2Read: ec2sim replays answers rendered in a read before the measured one (false: it renders each, on the benchmark's CPUs)")
)

// ec2BenchWorld is a cluster of n Karpenter nodes over three zones in ec2sim, with EC2's
// latency (50 ms a call) and throttling (a bucket of 100, 20 a second): each instance has 2
// ENIs of 10 addresses in one of 6 subnets.
func ec2BenchWorld(b *testing.B, n int) (*ec2sim.Server, string, []corev1.Node) {
	b.Helper()
	sim := ec2sim.New()
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	for s := range 6 {
		sim.AddSubnets(snapshot.Subnet{ID: fmt.Sprintf("subnet-%d", s), VpcID: "vpc-1", CIDR: fmt.Sprintf("10.%d.0.0/16", s),
			Zone: zones[s%3], AvailableIPs: 60000})
	}
	sim.AddSecurityGroups(snapshot.SecurityGroup{ID: "sg-nodes", Name: "nodes", VpcID: "vpc-1"})
	sim.AddInstanceTypes(snapshot.InstanceType{Name: "m5.large", Hypervisor: "nitro", VCPUs: 2, MaxENIs: 3, IPv4PerENI: 10,
		NetworkCards: []snapshot.NetworkCard{{Index: 0, MaxENIs: 3}}})
	nodes := make([]corev1.Node, 0, n)
	batch := make([]snapshot.Instance, 0, 1000)
	for i := range n {
		id, zone, subnet := ec2InstanceID(i), zones[i%3], fmt.Sprintf("subnet-%d", i%6)
		in := snapshot.Instance{ID: id, Type: "m5.large", State: "running", Zone: zone, VpcID: "vpc-1", SubnetID: subnet,
			PrivateIP:      fmt.Sprintf("10.%d.%d.%d", i%6, (i/250)%250, i%250),
			SecurityGroups: []snapshot.GroupRef{{ID: "sg-nodes", Name: "nodes"}},
			Tags:           map[string]string{"kubernetes.io/cluster/prod": "owned", "karpenter.sh/nodepool": "default"}}
		for e := range 2 {
			eni := snapshot.ENI{ID: fmt.Sprintf("eni-%015x%02d", i, e), InterfaceType: "interface", SubnetID: subnet, DeviceIndex: int32(e),
				SecurityGroups: []snapshot.GroupRef{{ID: "sg-nodes", Name: "nodes"}}}
			for a := range 10 {
				eni.PrivateIPs = append(eni.PrivateIPs, fmt.Sprintf("10.%d.%d.%d", i%6, e*20+a, i%250))
			}
			in.ENIs = append(in.ENIs, eni)
		}
		batch = append(batch, in)
		if len(batch) == cap(batch) {
			sim.AddInstances(batch...)
			batch = batch[:0]
		}
		nodes = append(nodes, ec2Node(fmt.Sprintf("node-%06d", i), zone, id, "m5.large"))
	}
	sim.AddInstances(batch...)
	return sim, sim.Start(b), nodes
}

// BenchmarkEC2Read measures the EC2 phase of a check over a whole cluster, nodes fed in pages
// of 500 as the node list gives them, against ec2sim at 50 ms a call with EC2's throttling:
// by instance ID without the pacer (as before it), by instance ID paced, and the strategy
// chosen by size (by cluster tag from 5,000 nodes), paced, with prefix delegation off and on.
// chosen-paced-unnamed reads the cluster's name from the first instances' tags (no
// --cluster-name). It reports EC2 requests, RequestLimitExceeded answers, calls that waited for
// the pacer and their wait, the instances decoded (each once: as many as the nodes), and the
// DescribeNetworkInterfaces and GetSubnetCidrReservations among the requests. ec2sim
// replays answers rendered in an unmeasured read first (-ec2.replay), so the wall time is the
// client's work and EC2's latency and throttling, as against EC2 itself.
//
//	go test ./pkg/collect -run '^$' -bench EC2Read -benchtime 1x -ec2.sizes 5000,10000,100000
func BenchmarkEC2Read(b *testing.B) {
	for _, field := range strings.Split(*benchEC2Sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n <= 0 {
			b.Fatalf("-ec2.sizes: %q is not a node count", field)
		}
		sim, url, nodes := ec2BenchWorld(b, n)
		for _, mode := range []struct {
			name      string
			pacer     func() *Pacer
			sizeKnown bool
			// prefixes turns prefix delegation on: every subnet read has its every interface
			// and CIDR reservation read.
			prefixes bool
			// unnamed leaves the cluster's name out: it is read from the first instances' tags.
			unnamed bool
		}{
			{"ids-unpaced", func() *Pacer { return NewPacer(1<<30, 1<<30) }, false, false, false},
			{"ids-paced", NewDefaultPacer, false, false, false},
			{"chosen-paced", NewDefaultPacer, true, false, false},
			{"chosen-paced-unnamed", NewDefaultPacer, true, false, true},
			{"chosen-paced-prefixes", NewDefaultPacer, true, true, false},
		} {
			b.Run(fmt.Sprintf("nodes=%d/%s", n, mode.name), func(b *testing.B) {
				read := func(pacer *Pacer) (*snapshot.Snapshot, *Meter) {
					meter := &Meter{}
					c := &Collector{EC2: ec2sim.NewClient(url, "us-west-2"), ClusterName: "prod", Pacer: pacer, Meter: meter}
					if mode.unnamed {
						c.ClusterName = ""
					}
					s := snapshot.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
					s.Nodes = nodes
					if mode.prefixes {
						// Subnet discovery off, so that the only reads aws-node adds are the
						// prefix subnets'.
						s.AWSNode = &snapshot.AWSNode{Env: map[string]string{snapshot.EnvPrefixDelegation: "true",
							snapshot.EnvSubnetDiscovery: "false"}}
					}
					e := c.startEC2(b.Context())
					for i := 0; i < len(nodes); i += 500 {
						remaining := int64(-1) // a list that does not say its size is read by ID
						if mode.sizeKnown {
							remaining = int64(len(nodes) - min(i+500, len(nodes)))
						}
						e.addNodes(nodes[i:min(i+500, len(nodes))], remaining)
					}
					e.nodesDone(s)
					e.finish(b.Context(), s)
					return s, meter
				}
				sim.SetReplay(*benchEC2Replay)
				if *benchEC2Replay {
					// EC2 renders its answers on its own machines: render them once, unmeasured.
					sim.SetLatency(0)
					sim.SetThrottle(1<<30, 1<<30)
					read(NewPacer(1<<30, 1<<30))
				}
				sim.SetLatency(50 * time.Millisecond)
				var requests, throttled, paced, gaps, interfaces, reservations, decoded int
				var waited time.Duration
				var strategy string
				for b.Loop() {
					sim.SetThrottle(100, 20) // a full bucket, as after a quiet minute
					before, throttledBefore := sim.Total(), sim.Throttled()
					enisBefore, resBefore := sim.Count(ec2sim.DescribeNetworkInterfaces), sim.Count(ec2sim.GetSubnetCidrReservations)
					s, meter := read(mode.pacer())
					requests, throttled = sim.Total()-before, sim.Throttled()-throttledBefore
					interfaces = sim.Count(ec2sim.DescribeNetworkInterfaces) - enisBefore
					reservations = sim.Count(ec2sim.GetSubnetCidrReservations) - resBefore
					p := meter.Progress()
					paced, waited, strategy, gaps, decoded = p.Paced, p.PacedWait, p.Strategy, len(s.Gaps), p.Decoded
					if len(s.Instances) < n && throttled == 0 {
						b.Fatalf("%d instances read of %d, gaps %+v", len(s.Instances), n, s.Gaps)
					}
				}
				b.ReportMetric(float64(requests), "ec2-requests/op")
				b.ReportMetric(float64(throttled), "throttled/op")
				b.ReportMetric(float64(paced), "paced/op")
				b.ReportMetric(waited.Seconds(), "paced-s/op")
				b.ReportMetric(float64(gaps), "gaps/op")
				b.ReportMetric(float64(decoded), "instances-decoded/op")
				b.ReportMetric(float64(interfaces), "interface-requests/op")
				b.ReportMetric(float64(reservations), "reservation-requests/op")
				b.Logf("%d nodes, %s: %s", n, mode.name, strategy)
			})
		}
	}
}
