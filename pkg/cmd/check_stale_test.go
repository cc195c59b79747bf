package cmd

import (
	"strings"
	"testing"
)

// TestVerboseSaysWhichChecksAreOlderThanTheCluster: the demo cluster runs aws-node
// v1.23.1-eksbuild.1 and its network policy agent v1.4.2-eksbuild.1, newer than the ledger's
// pins, so `check -v` says on standard error which checks were verified against the older
// versions; standard output is the same as without -v, and nothing is said without -v or for
// checks --only leaves out.
func TestVerboseSaysWhichChecksAreOlderThanTheCluster(t *testing.T) {
	file := demoFile(t)
	verbose := run(t, "check", "--snapshot", file, "-v", "-o", "json")
	if verbose.code != ExitOK && verbose.code != ExitFindings {
		t.Fatalf("exit %d: %s", verbose.code, verbose.stderr)
	}
	const cni = "verified against amazon-vpc-cni-k8s v1.23.0, the cluster runs v1.23.1-eksbuild.1: "
	var line string
	for _, l := range strings.Split(verbose.stderr, "\n") {
		if strings.HasPrefix(l, cni) {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("stderr lacks %q:\n%s", cni, verbose.stderr)
	}
	for _, id := range []string{"max-pods-exceeds-ip-capacity", "eniconfig-missing", "vpc-cni-version-too-old"} {
		if !strings.Contains(line, id) {
			t.Errorf("the VPC CNI line does not name %s:\n%s", id, line)
		}
	}
	if strings.Contains(line, "subnet-not-selected") {
		t.Errorf("the VPC CNI line names a check verified against Karpenter only:\n%s", line)
	}
	if strings.Contains(verbose.stdout, "verified against") {
		t.Errorf("the staleness is on standard output:\n%s", verbose.stdout)
	}
	quiet := run(t, "check", "--snapshot", file, "-o", "json")
	if strings.Contains(quiet.stderr, "verified against") {
		t.Errorf("without -v: stderr %q", quiet.stderr)
	}
	if quiet.stdout != verbose.stdout {
		t.Error("-v changed standard output")
	}
	only := run(t, "check", "--snapshot", file, "-v", "-o", "json", "--only", "subnet-not-selected")
	if strings.Contains(only.stderr, "verified against") {
		t.Errorf("--only a Karpenter check: stderr %q", only.stderr)
	}
	again := run(t, "check", "--snapshot", file, "-v", "-o", "json")
	if again.stderr != verbose.stderr {
		t.Errorf("two runs differ:\n%s\n%s", verbose.stderr, again.stderr)
	}
}
