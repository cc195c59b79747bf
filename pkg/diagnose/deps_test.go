package diagnose

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPurePackagesStayPure fails when pkg/diagnose or pkg/snapshot depend on a Kubernetes
// client, the EC2 client, cobra or the terminal UI libraries: they must stay pure data and logic.
func TestPurePackagesStayPure(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list package dependencies, and is not on PATH: %v", err)
	}
	const module = "github.com/karpnet/kubectl-karpnet"
	cmd := exec.CommandContext(t.Context(), goTool, "list", "-deps", module+"/pkg/diagnose", module+"/pkg/snapshot")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps returned %d packages, want the standard library at least: %q", len(deps), deps)
	}
	forbidden := func(pkg string) bool {
		return pkg == "k8s.io/client-go" || strings.HasPrefix(pkg, "k8s.io/client-go/") ||
			pkg == "github.com/spf13/cobra" || strings.HasPrefix(pkg, "github.com/spf13/cobra/") ||
			strings.HasPrefix(pkg, "github.com/charmbracelet/") ||
			pkg == "github.com/aws/aws-sdk-go-v2/service/ec2"
	}
	for _, pkg := range deps {
		if forbidden(pkg) {
			t.Errorf("pkg/diagnose or pkg/snapshot depends on %s", pkg)
		}
	}
}
