package maxpods

import "testing"

// TestPodENITable reads the embedded VPC limits table: its sources at the pinned versions and
// types the controller trunks, does not trunk, or does not list while Karpenter does.
func TestPodENITable(t *testing.T) {
	src := PodENISource()
	want := PodENISources{
		Controller: "aws/amazon-vpc-resource-controller-k8s v1.7.19 pkg/aws/vpc/limits.go (Limits)",
		Karpenter:  "aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/zz_generated.vpclimits.go (Limits)",
		Moto:       "5.2.1 moto/ec2/resources/instance_types.json.gz (ProcessorInfo, VCpuInfo, MemoryInfo, Hypervisor)",
	}
	if src != want {
		t.Errorf("PodENISource() = %+v, want %+v", src, want)
	}
	for _, tc := range []struct {
		name   string
		want   PodENIType
		trunks bool
	}{
		{"m5.large", PodENIType{Name: "m5.large", ControllerKnows: true, ControllerBranch: 9, KarpenterBranch: 9, Hypervisor: "nitro", Arch: "amd64", VCPUs: 2, MemoryMiB: 8192}, true},
		{"t3.large", PodENIType{Name: "t3.large", ControllerKnows: true, Hypervisor: "nitro", Arch: "amd64", VCPUs: 2, MemoryMiB: 8192}, false},
		{"c8in.large", PodENIType{Name: "c8in.large", KarpenterBranch: 8, Hypervisor: "nitro", Arch: "amd64", VCPUs: 2, MemoryMiB: 4096}, false},
		{"c5.metal", PodENIType{Name: "c5.metal", ControllerKnows: true, ControllerBranch: 107, KarpenterBranch: 107, Arch: "amd64", VCPUs: 96, MemoryMiB: 196608}, true},
	} {
		got, ok := PodENI(tc.name)
		if !ok || got != tc.want || got.ControllerTrunks() != tc.trunks {
			t.Errorf("PodENI(%s) = %+v, %v (trunks %v), want %+v (trunks %v)", tc.name, got, ok, got.ControllerTrunks(), tc.want, tc.trunks)
		}
	}
	if n := len(PodENITypes()); n < 1300 {
		t.Errorf("PodENITypes() has %d types, want the union of both tables (1,346 at the pinned versions)", n)
	}
}
