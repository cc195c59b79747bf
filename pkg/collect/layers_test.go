package collect

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReadersStayReaders fails when a reader of wire formats that pkg/collect uses depends on
// more than reading its bytes needs: none reaches back into pkg/collect or any command,
// printer or terminal UI package, or into cobra or the terminal UI libraries; the EC2 reader
// knows no Kubernetes client and no EC2 client (the SDK's types only), the Kubernetes readers
// no client-go and no AWS, and the answer recorder no AWS. Of the module they may use only
// pkg/snapshot and the readers named. pkg/snapshot itself stays pure (pkg/diagnose's
// TestPurePackagesStayPure).
func TestReadersStayReaders(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list package dependencies, and is not on PATH: %v", err)
	}
	const module = "github.com/karpnet/kubectl-karpnet"
	prefixed := func(prefixes ...string) func(string) bool {
		return func(dep string) bool {
			for _, p := range prefixes {
				if dep == p || strings.HasPrefix(dep, p+"/") {
					return true
				}
			}
			return false
		}
	}
	noAWS := prefixed("github.com/aws")
	noClientGo := prefixed("k8s.io/client-go")
	noEC2Client := func(dep string) bool {
		return dep == "github.com/aws/aws-sdk-go-v2/service/ec2" || prefixed("github.com/aws/aws-sdk-go-v2/config",
			"github.com/aws/aws-sdk-go-v2/credentials", "github.com/aws/aws-sdk-go-v2/service/sts")(dep)
	}
	readers := map[string]struct {
		module    []string // the module's packages it may use
		forbidden []func(string) bool
	}{
		"internal/ec2xml":     {[]string{"pkg/snapshot"}, []func(string) bool{noClientGo, noEC2Client}},
		"internal/kubestream": {[]string{"pkg/snapshot", "internal/kubeobj"}, []func(string) bool{noAWS, noClientGo}},
		"internal/kubeobj":    {[]string{"pkg/snapshot"}, []func(string) bool{noAWS, noClientGo}},
		"internal/answerrec":  {nil, []func(string) bool{noAWS}},
	}
	everywhere := prefixed("github.com/spf13/cobra", "github.com/charmbracelet")
	var args []string
	for pkg := range readers {
		args = append(args, module+"/"+pkg)
	}
	cmd := exec.CommandContext(t.Context(), goTool, append([]string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module+"/")
		rules, ok := readers[pkg]
		if !ok {
			t.Fatalf("go list named %s, which was not asked for", fields[0])
		}
		listed++
		if len(fields) < 10 {
			t.Errorf("%s: %d dependencies listed, want the standard library at least", pkg, len(fields)-1)
		}
		for _, dep := range fields[1:] {
			if own, ok := strings.CutPrefix(dep, module+"/"); ok {
				allowed := false
				for _, m := range rules.module {
					allowed = allowed || own == m
				}
				if !allowed {
					t.Errorf("%s depends on %s, of the module it may use only %v", pkg, own, rules.module)
				}
				continue
			}
			if everywhere(dep) {
				t.Errorf("%s depends on %s", pkg, dep)
			}
			for _, forbidden := range rules.forbidden {
				if forbidden(dep) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
	if listed != len(readers) {
		t.Fatalf("go list listed %d packages, want the %d readers", listed, len(readers))
	}
}
