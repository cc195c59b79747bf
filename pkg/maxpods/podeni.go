package maxpods

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// vpcLimits is which instance types get a trunk ENI for security groups for pods, one type a
// line, written by hack/vpclimits from the VPC resource controller's limits table
// (aws/amazon-vpc-resource-controller-k8s pkg/aws/vpc/limits.go, IsTrunkingCompatible and
// BranchInterface), Karpenter's copy of it (aws/karpenter-provider-aws
// pkg/providers/instancetype/zz_generated.vpclimits.go, from which Karpenter gives a type its
// vpc.amazonaws.com/pod-eni capacity) and moto's DescribeInstanceTypes data (architecture, vCPUs,
// memory); its header names the versions read.
//
//go:embed vpc-limits.txt
var vpcLimits string

// PodENIType is one instance type of the embedded VPC limits table.
type PodENIType struct {
	Name string
	// ControllerKnows is whether the VPC resource controller's table lists the type; a type it
	// does not list gets no trunk ("not supported yet by the vpc resource controller").
	ControllerKnows bool
	// ControllerBranch is the controller's BranchInterface, 0 when the type is not trunking
	// compatible or not listed.
	ControllerBranch int
	// KarpenterBranch is the vpc.amazonaws.com/pod-eni capacity Karpenter gives the type: its
	// table's BranchInterface when trunking compatible, else 0.
	KarpenterBranch int
	// Hypervisor is nitro or xen, empty for bare metal; Arch is amd64 or arm64, empty when moto
	// does not know the type; VCPUs and MemoryMiB are 0 then.
	Hypervisor string
	Arch       string
	VCPUs      int
	MemoryMiB  int
}

// ControllerTrunks reports whether the VPC resource controller attaches a trunk ENI to the
// type: it lists it and says it is trunking compatible.
func (t PodENIType) ControllerTrunks() bool { return t.ControllerKnows && t.ControllerBranch > 0 }

// PodENISources are the header lines of the embedded table: each source and its version.
type PodENISources struct {
	Controller, Karpenter, Moto string
}

type podENITable struct {
	sources PodENISources
	types   map[string]PodENIType
	names   []string
}

var podENITypes = sync.OnceValues(func() (*podENITable, error) { return parsePodENI(vpcLimits) })

// parsePodENI reads the table: "#" header lines naming the sources, then one type a line.
func parsePodENI(text string) (*podENITable, error) {
	t := &podENITable{types: map[string]PodENIType{}}
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			switch kind, src, _ := strings.Cut(rest, " "); kind {
			case "controller":
				t.sources.Controller = src
			case "karpenter":
				t.sources.Karpenter = src
			case "moto":
				t.sources.Moto = src
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) != 7 {
			return nil, fmt.Errorf("vpc-limits.txt line %d: %d fields, want 7", i+1, len(f))
		}
		num := func(s string) int {
			n, _ := strconv.Atoi(s)
			return n
		}
		dash := func(s string) string {
			if s == "-" {
				return ""
			}
			return s
		}
		pt := PodENIType{Name: f[0], ControllerKnows: f[1] != "-", ControllerBranch: num(f[1]), KarpenterBranch: num(f[2]),
			Hypervisor: dash(f[3]), Arch: dash(f[4]), VCPUs: num(f[5]), MemoryMiB: num(f[6])}
		t.types[pt.Name] = pt
		t.names = append(t.names, pt.Name)
	}
	slices.Sort(t.names)
	return t, nil
}

// PodENI returns the type's entry of the embedded VPC limits table, and whether the table
// (the controller's or Karpenter's) lists it.
func PodENI(name string) (PodENIType, bool) {
	t, err := podENITypes()
	if err != nil {
		return PodENIType{}, false
	}
	pt, ok := t.types[name]
	return pt, ok
}

// PodENITypes returns every type of the embedded VPC limits table, sorted by name.
func PodENITypes() []PodENIType {
	t, err := podENITypes()
	if err != nil {
		return nil
	}
	out := make([]PodENIType, 0, len(t.names))
	for _, n := range t.names {
		out = append(out, t.types[n])
	}
	return out
}

// PodENISource names the sources of the embedded VPC limits table and their versions.
func PodENISource() PodENISources {
	t, err := podENITypes()
	if err != nil {
		return PodENISources{}
	}
	return t.sources
}
