package diagnose

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/karpnet/kubectl-karpnet"

// models are the packages below pkg/diagnose that hold its models and the report's plain view
// types, each reading the snapshot (and maxpods' figures) at most.
var models = []string{"pkg/diagnose/blocks", "pkg/diagnose/report", "pkg/diagnose/subnetcap", "pkg/diagnose/view", "pkg/diagnose/wayout"}

// purePackages are the packages of pure data and logic, each with the packages of this module
// it may depend on: imports point down, from views to the diagnosis to its models to the snapshot.
var purePackages = map[string][]string{
	"pkg/kinds":              nil,
	"pkg/snapshot":           nil,
	"pkg/diagnose":           append([]string{"pkg/kinds", "pkg/maxpods", "pkg/snapshot"}, models...),
	"pkg/diagnose/blocks":    {"pkg/snapshot"},
	"pkg/diagnose/report":    {"pkg/diagnose/view", "pkg/diagnose/wayout", "pkg/kinds", "pkg/snapshot"},
	"pkg/diagnose/subnetcap": {"pkg/maxpods", "pkg/snapshot"},
	"pkg/diagnose/view":      nil,
	"pkg/diagnose/wayout":    {"pkg/snapshot"},
	"pkg/diff":               append([]string{"pkg/diagnose", "pkg/kinds", "pkg/maxpods", "pkg/snapshot"}, models...),
	"pkg/maxpods":            {"pkg/snapshot"},
	"pkg/sheet":              append([]string{"pkg/diagnose", "pkg/kinds", "pkg/maxpods", "pkg/snapshot"}, models...),
}

// TestPurePackagesStayPure fails when a pure package depends on a Kubernetes client, the EC2
// client, cobra or the terminal UI libraries, or on a package of this module above it.
func TestPurePackagesStayPure(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list package dependencies, and is not on PATH: %v", err)
	}
	forbidden := func(pkg string) bool {
		return pkg == "k8s.io/client-go" || strings.HasPrefix(pkg, "k8s.io/client-go/") ||
			pkg == "github.com/spf13/cobra" || strings.HasPrefix(pkg, "github.com/spf13/cobra/") ||
			strings.HasPrefix(pkg, "github.com/charmbracelet/") ||
			pkg == "github.com/aws/aws-sdk-go-v2/service/ec2"
	}
	for pure, allowed := range purePackages {
		out, err := exec.CommandContext(t.Context(), goTool, "list", "-deps", module+"/"+pure).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pure, err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, module+"/"+pure) {
			t.Fatalf("go list -deps %s returned %d packages, want the package itself at least: %q", pure, len(deps), deps)
		}
		for _, pkg := range deps {
			if forbidden(pkg) {
				t.Errorf("%s depends on %s", pure, pkg)
			}
			own, ok := strings.CutPrefix(pkg, module+"/")
			if ok && own != pure && !slices.Contains(allowed, own) {
				t.Errorf("%s depends on %s, which is not below it (allowed: %v)", pure, own, allowed)
			}
		}
	}
}
