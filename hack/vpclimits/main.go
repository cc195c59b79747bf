// Command vpclimits writes pkg/maxpods/vpc-limits.txt, the table of which instance types get a
// trunk ENI for security groups for pods: the VPC resource controller's own limits table
// (aws/amazon-vpc-resource-controller-k8s pkg/aws/vpc/limits.go, Limits: IsTrunkingCompatible
// and BranchInterface), next to Karpenter's copy of it (aws/karpenter-provider-aws
// pkg/providers/instancetype/zz_generated.vpclimits.go), which decides the
// vpc.amazonaws.com/pod-eni capacity Karpenter gives a type, and, from moto's EC2
// DescribeInstanceTypes data, each type's architecture, vCPUs and memory, the labels NodePool
// requirements select types on. It parses the Go sources (it copies no code) and records the
// versions it read. From a checkout of each project at the pinned tag:
//
//	git -C amazon-vpc-resource-controller-k8s show v1.7.19:pkg/aws/vpc/limits.go > /tmp/rc.go
//	git -C karpenter-provider-aws show v1.14.1:pkg/providers/instancetype/zz_generated.vpclimits.go > /tmp/kp.go
//	go run ./hack/vpclimits -controller /tmp/rc.go -controller-version v1.7.19 \
//		-karpenter /tmp/kp.go -karpenter-version v1.14.1 \
//		-moto .../site-packages/moto/ec2/resources/instance_types.json.gz -moto-version 5.2.1
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
)

// limit is one type's entry of a VPC limits table.
type limit struct {
	trunking   bool
	branch     int
	hypervisor string
}

// motoType is what the table keeps of moto's DescribeInstanceTypes entry.
type motoType struct {
	ProcessorInfo struct{ SupportedArchitectures []string }
	VCpuInfo      struct{ DefaultVCpus int }
	MemoryInfo    struct{ SizeInMiB int }
	Hypervisor    string
}

func main() {
	ctrl := flag.String("controller", "", "the VPC resource controller's pkg/aws/vpc/limits.go")
	ctrlVersion := flag.String("controller-version", "", "its tag")
	kp := flag.String("karpenter", "", "Karpenter's pkg/providers/instancetype/zz_generated.vpclimits.go")
	kpVersion := flag.String("karpenter-version", "", "its tag")
	moto := flag.String("moto", "", "moto's ec2/resources/instance_types.json.gz")
	motoVersion := flag.String("moto-version", "", "its version")
	out := flag.String("out", "pkg/maxpods/vpc-limits.txt", "the table to write")
	flag.Parse()
	if err := run(*ctrl, *ctrlVersion, *kp, *kpVersion, *moto, *motoVersion, *out); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctrl, ctrlVersion, kp, kpVersion, moto, motoVersion, out string) error {
	if ctrlVersion == "" || kpVersion == "" || motoVersion == "" {
		return fmt.Errorf("name the version of every source (-controller-version, -karpenter-version, -moto-version)")
	}
	rc, err := readLimits(ctrl)
	if err != nil {
		return err
	}
	kl, err := readLimits(kp)
	if err != nil {
		return err
	}
	types, err := readMoto(moto)
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for n := range rc {
		names[n] = true
	}
	for n := range kl {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	slices.Sort(sorted)
	var b strings.Builder
	fmt.Fprintf(&b, "# controller aws/amazon-vpc-resource-controller-k8s %s pkg/aws/vpc/limits.go (Limits)\n", ctrlVersion)
	fmt.Fprintf(&b, "# karpenter aws/karpenter-provider-aws %s pkg/providers/instancetype/zz_generated.vpclimits.go (Limits)\n", kpVersion)
	fmt.Fprintf(&b, "# moto %s moto/ec2/resources/instance_types.json.gz (ProcessorInfo, VCpuInfo, MemoryInfo, Hypervisor)\n", motoVersion)
	b.WriteString("# name controller-branch karpenter-branch hypervisor arch vcpus memory-mib\n")
	b.WriteString("# a branch count is - when the table lacks the type, 0 when it is not trunking compatible; - when moto lacks it\n")
	for _, n := range sorted {
		hv := "-"
		for _, l := range []limit{rc[n], kl[n]} {
			if l.hypervisor != "" {
				hv = l.hypervisor
			}
		}
		arch, vcpus, mem := "-", "-", "-"
		if t, ok := types[n]; ok {
			if t.Hypervisor != "" {
				hv = t.Hypervisor
			}
			arch = kubeArch(t.ProcessorInfo.SupportedArchitectures)
			vcpus, mem = strconv.Itoa(t.VCpuInfo.DefaultVCpus), strconv.Itoa(t.MemoryInfo.SizeInMiB)
		}
		fmt.Fprintf(&b, "%s %s %s %s %s %s %s\n", n, branch(rc, n), branch(kl, n), hv, arch, vcpus, mem)
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

// kubeArch is the Kubernetes name of the first architecture Karpenter recognises, as its
// AWSToKubeArchitectures maps them; - for none.
func kubeArch(archs []string) string {
	for _, a := range archs {
		switch a {
		case "x86_64":
			return "amd64"
		case "arm64":
			return "arm64"
		}
	}
	return "-"
}

// branch is a type's branch ENIs in a table: - when absent, 0 when it cannot be trunked.
func branch(m map[string]limit, name string) string {
	l, ok := m[name]
	switch {
	case !ok:
		return "-"
	case !l.trunking:
		return "0"
	}
	return strconv.Itoa(l.branch)
}

// readLimits parses the Limits map of a VPC limits Go file.
func readLimits(path string) (map[string]limit, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	out := map[string]limit{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "Limits" || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			return false
		}
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, ok := kv.Key.(*ast.BasicLit)
			if !ok {
				continue
			}
			name, _ := strconv.Unquote(key.Value)
			out[name] = readLimit(kv.Value)
		}
		return false
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no Limits map found", path)
	}
	return out, nil
}

// readLimit reads the fields of one VPCLimits literal.
func readLimit(e ast.Expr) limit {
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = u.X
	}
	var l limit
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return l
	}
	for _, f := range lit.Elts {
		kv, ok := f.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		field, _ := kv.Key.(*ast.Ident)
		if field == nil {
			continue
		}
		switch v := kv.Value.(type) {
		case *ast.Ident:
			if field.Name == "IsTrunkingCompatible" {
				l.trunking = v.Name == "true"
			}
		case *ast.BasicLit:
			switch field.Name {
			case "BranchInterface":
				l.branch, _ = strconv.Atoi(v.Value)
			case "Hypervisor":
				l.hypervisor, _ = strconv.Unquote(v.Value)
			}
		}
	}
	return l
}

// readMoto reads moto's DescribeInstanceTypes data, by type.
func readMoto(path string) (map[string]motoType, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	out := map[string]motoType{}
	if err := json.NewDecoder(z).Decode(&out); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path, err)
	}
	return out, nil
}
