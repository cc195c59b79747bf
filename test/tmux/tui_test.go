// Package tmux drives the real kubectl-karpnet binary's terminal UI in tmux, as a person would:
// it types keys with send-keys and reads the screen with capture-pane.
package tmux

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// session is one tmux server and session running the plugin.
type session struct {
	t      *testing.T
	socket string
	// bin is the plugin binary built for this session.
	bin string
}

// start builds the plugin and runs `kubectl-karpnet args...` in a detached tmux session of
// width x height.
func start(t *testing.T, width, height int, args ...string) *session {
	if testing.Short() {
		t.Skip("-short: this test drives the real binary in tmux; run go test without -short to include it")
	}
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is needed to drive the terminal UI and is not on PATH: apt-get install tmux")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubectl-karpnet")
	_, file, _, _ := runtime.Caller(0)
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "./cmd/kubectl-karpnet")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-karpnet: %v\n%s", err, out)
	}
	s := &session{t: t, socket: filepath.Join(dir, "tmux.sock"), bin: bin}
	command := strings.Join(append([]string{bin}, args...), " ")
	s.tmux("new-session", "-d", "-s", "karpnet", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height),
		"env", "TERM=xterm-256color", "NO_COLOR=1", "sh", "-c", command+"; echo EXITED $?; sleep 30")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.socket, "kill-server").Run() })
	return s
}

func (s *session) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen returns what the pane shows now.
func (s *session) screen() string { return s.tmux("capture-pane", "-p", "-t", "karpnet") }

// keys types keys into the pane (tmux key names, e.g. Enter, Escape, or literal text).
func (s *session) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", "karpnet"}, keys...)...)
}

// waitFor waits until the screen satisfies ok, failing with the last screen after 15 s.
func (s *session) waitFor(what string, ok func(screen string) bool) string {
	s.t.Helper()
	return s.waitForWithin(15*time.Second, what, ok)
}

// waitForWithin waits until the screen satisfies ok, failing with the last screen after d.
func (s *session) waitForWithin(d time.Duration, what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		scr := s.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waiting for %s; the screen shows:\n%s", what, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func contains(subs ...string) func(string) bool {
	return func(scr string) bool {
		for _, sub := range subs {
			if !strings.Contains(scr, sub) {
				return false
			}
		}
		return true
	}
}

// The demo's node whose batch pool over-packs an m4.large, and a healthy general node.
const (
	brokenNode  = "ip-10-0-50-20.us-west-2.compute.internal"
	healthyNode = "ip-10-0-1-69.us-west-2.compute.internal"
)

// TestDemoTUI opens the demo in the terminal UI, filters to one node, opens it, goes back and quits.
func TestDemoTUI(t *testing.T) {
	s := start(t, 120, 40, "demo")
	s.waitFor("the nodes view", contains("ip-10-0-", "critical"))

	s.keys("/")
	s.waitFor("the filter prompt", contains("enter keep filter"))
	s.keys("-l", "10-0-50-20")
	s.waitFor("the filter to leave only "+brokenNode, func(scr string) bool {
		return strings.Contains(scr, "10-0-50-20") && !strings.Contains(scr, "10-0-1-69.")
	})

	s.keys("Enter") // leave the filter prompt
	s.keys("Enter") // open the node
	s.waitFor("the node view of "+brokenNode, contains("m4.large", "i-08edcb6bdabe64dbb"))

	s.keys("Escape")
	s.waitFor("the nodes view again", func(scr string) bool {
		return strings.Contains(scr, "10-0-50-20") && !strings.Contains(scr, "i-08edcb6bdabe64dbb")
	})

	s.keys("q")
	s.waitFor("the program to exit 0", contains("EXITED 0"))
}

// TestDemoTUICilium opens the demo's Cilium context, the worst node first, and steps through
// its sheet's sections to the Cilium IPAM section, which stands in the VPC CNI's pod capacity's
// place.
func TestDemoTUICilium(t *testing.T) {
	s := start(t, 120, 40, "demo", "--context", "demo-cilium")
	s.waitFor("the nodes view", contains("context: demo-cilium", "ip-10-1-", "critical"))
	s.keys("Enter")
	s.waitFor("the node view", contains("[Overview]", "cilium-max-pods-exceeds-ip-capacity"))
	s.keys("Right", "Right", "Right", "Right")
	s.waitFor("the Cilium IPAM section", contains("[Capacity]", "Cilium IPAM (ENI mode)", "First interface index"))
	s.keys("q")
	s.waitFor("the program to exit 0", contains("EXITED 0"))
}

// copiedCommands is the status line after y copied a finding's commands.
var copiedCommands = regexp.MustCompile(`copied [0-9]+ commands?`)

// TestDemoTUIFindingSheet opens a finding's sheet from the findings view, copies its remedy
// (Y the prose, y the commands), explains its check (with the full help opened and closed
// there), follows the sheet to the node and from the node's references to its NodePool, and
// goes back along the path: the node, the finding sheet, then the opened group.
func TestDemoTUIFindingSheet(t *testing.T) {
	s := start(t, 120, 40, "demo")
	s.waitFor("the nodes view", contains("ip-10-0-", "critical"))

	s.keys("f")
	s.waitFor("the findings view", contains("findings 19/19"))
	s.keys("Down", "Enter")
	s.waitFor("the instance-not-found group", contains("findings › instance-not-found"))
	s.keys("Enter")
	s.waitFor("the finding sheet", contains("finding/instance-not-found", "References", "About the check"))

	s.waitFor("the copy keys in the footer", contains("y copy commands", "Y copy prose"))
	s.keys("Y")
	s.waitFor("the remedy's prose copied", contains("copied the remedy's prose"))
	s.keys("y")
	s.waitFor("the commands copied, or none to copy", func(scr string) bool {
		return copiedCommands.MatchString(scr) || strings.Contains(scr, "no command to copy")
	})

	s.keys("e")
	s.waitFor("the check's catalogue entry", contains("explain › instance-not-found", "Fires when"))
	s.keys("?")
	s.waitFor("the full help", contains("f findings", "home top", "q quit"))
	s.keys("Escape")
	s.waitFor("the full help closed", func(scr string) bool {
		return strings.Contains(scr, "explain › instance-not-found") && !strings.Contains(scr, "home top")
	})
	s.keys("Escape")
	s.waitFor("the finding sheet after the explain view", contains("finding/instance-not-found", "References"))

	s.keys("Enter")
	s.waitFor("the node sheet with its problems first", contains("[Overview]", "Problems", "remedy:"))

	s.keys("Tab")
	s.waitFor("the node sheet's NodePool reference selected", contains("References", "▸ nodepool/general"))
	s.keys("Enter")
	s.waitFor("the NodePool sheet", contains("nodepool/general", "Class's subnet zones"))
	s.keys("Escape")
	s.waitFor("the node sheet again, its reference still selected", contains("▸ nodepool/general", "References  tab or ] selects"))

	s.keys("Escape")
	s.waitFor("the finding sheet again", contains("finding/instance-not-found", "References"))
	s.keys("Escape")
	s.waitFor("the opened group again", contains("enter opens a finding"))

	s.keys("q")
	s.waitFor("the program to exit 0", contains("EXITED 0"))
}

// TestTUIRefusesAPipe checks that without a terminal the UI never starts.
func TestTUIRefusesAPipe(t *testing.T) {
	s := start(t, 100, 10, "demo", "|", "cat")
	scr := s.waitFor("the refusal", contains("EXITED"))
	if !strings.Contains(scr, "kubectl karpnet demo check") {
		t.Errorf("screen: got\n%s\nwant a pointer to kubectl karpnet demo check", scr)
	}
}

// TestEmptyListsTakeEndAndEnter opens a snapshot without nodes and the demo filtered to
// nothing, then presses End and Enter, and End and Esc: the UI stays up and quits cleanly.
func TestEmptyListsTakeEndAndEnter(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.json")
	snap := `{"kind":"Snapshot","apiVersion":"karpnet/v1alpha1","formatVersion":1,"taken":"2026-11-20T09:30:00Z"}`
	if err := os.WriteFile(empty, []byte(snap), 0o644); err != nil {
		t.Fatalf("writing the empty snapshot: %v", err)
	}
	t.Run("snapshot without nodes", func(t *testing.T) {
		s := start(t, 100, 30, "tui", "--snapshot", empty)
		s.waitFor("the empty nodes view", contains("nodes 0/0"))
		s.keys("End", "Enter", "End", "Escape", "f", "End", "Enter", "s", "End", "Enter")
		s.waitFor("the subnets view", contains("subnets 0/0"))
		s.keys("q")
		s.waitFor("the program to exit 0", contains("EXITED 0"))
	})
	t.Run("filter matching nothing", func(t *testing.T) {
		s := start(t, 100, 30, "demo")
		s.waitFor("the nodes view", contains("ip-10-0-", "critical"))
		s.keys("/")
		s.waitFor("the filter prompt", contains("enter keep filter"))
		s.keys("-l", "no-such-node")
		s.keys("Enter")
		s.waitFor("no node shown", contains("nodes 0/36"))
		s.keys("End", "Enter", "End", "Escape")
		s.waitFor("every node back", contains("nodes 36/36"))
		s.keys("q")
		s.waitFor("the program to exit 0", contains("EXITED 0"))
	})
}

// TestWatchMarksNewAndResolvedFindings runs the UI with --watch over a snapshot file that is
// replaced between collections: first an empty cluster, then the demo (its findings marked
// new), then the empty cluster again (the demo's findings listed as resolved). The requested
// 1s is raised to the 15 s floor, which the status line says.
func TestWatchMarksNewAndResolvedFindings(t *testing.T) {
	dir := t.TempDir()
	file, empty, full := filepath.Join(dir, "watched.json"), filepath.Join(dir, "empty.json"), filepath.Join(dir, "demo.json")
	snap := `{"kind":"Snapshot","apiVersion":"karpnet/v1alpha1","formatVersion":1,"taken":"2026-11-20T09:29:00Z"}`
	for _, f := range []string{file, empty} {
		if err := os.WriteFile(f, []byte(snap), 0o644); err != nil {
			t.Fatalf("writing the empty snapshot: %v", err)
		}
	}
	s := start(t, 140, 40, "tui", "--snapshot", file, "--watch", "1s")
	s.waitFor("the raised interval and the read's age", contains("watch: every 15s (raised from 1s: EC2 budget)",
		"read 2026-11-20 09:29:00,", "d ago", "nodes 0/0"))
	save := exec.CommandContext(t.Context(), s.bin, "demo", "check", "--save-snapshot", full)
	if out, err := save.CombinedOutput(); !strings.Contains(string(out), "snapshot saved") {
		t.Fatalf("saving the demo snapshot: %v\n%s", err, out)
	}
	replace := func(from string) {
		b, err := os.ReadFile(from)
		if err == nil {
			err = os.WriteFile(file+".tmp", b, 0o644)
		}
		if err == nil {
			err = os.Rename(file+".tmp", file)
		}
		if err != nil {
			t.Fatalf("replacing the watched snapshot: %v", err)
		}
	}
	replace(full)
	s.keys("f")
	s.waitForWithin(25*time.Second, "the demo's findings marked new", contains("instance-not-found", "+1 new", "read 2026-11-20 09:30:00,"))
	replace(empty)
	s.waitForWithin(25*time.Second, "the demo's findings listed as resolved", contains("resolved since 09:30:00:", "instance-not-found node/"))
	s.keys("q")
	s.waitFor("the program to exit 0", contains("EXITED 0"))
}

// TestDemoTUIAt80And160Columns: in a real terminal without colour, at 80 columns a node whose
// status is only inherited reads ✖^ beside a node's own ✖, the node sheet's ENI table keeps
// its headings on one line and the subnets view's node counts end their lines; at 160 columns
// node names show whole.
func TestDemoTUIAt80And160Columns(t *testing.T) {
	s := start(t, 80, 40, "demo")
	scr := s.waitFor("the nodes view", contains("nodes 36/36"))
	if !regexp.MustCompile(`(?m)^  ✖\^ +ip-10-0-`).MatchString(scr) || !regexp.MustCompile(`(?m)^[▸ ] ✖ +ip-10-0-50-20`).MatchString(scr) {
		t.Errorf("80 columns: want inherited criticals marked ✖^ and %s's own ✖:\n%s", brokenNode, scr)
	}
	s.keys("Enter")
	s.waitFor("the node sheet", contains("[Overview]"))
	s.keys("Right", "Right", "Right")
	s.waitFor("the ENI table on one line", contains("[ENIs]", "CARD DEV ENI                   TYPE      SUBNET                   IPS PFX SGS"))
	s.keys("Escape")
	s.waitFor("the nodes view again", contains("nodes 36/36"))
	s.keys("s")
	scr = s.waitFor("the subnets view", contains("subnets 13/13"))
	if !regexp.MustCompile(`(?m)^▸ ✖ subnet-0c8ae009df552f60f .* free +10$`).MatchString(scr) || strings.Contains(scr, "NODES…") {
		t.Errorf("80 columns: want the node count ending the subnet's line:\n%s", scr)
	}
	s.keys("q")
	s.waitFor("the program to exit 0", contains("EXITED 0"))

	wide := start(t, 160, 40, "demo")
	scr = wide.waitFor("the nodes view", contains("nodes 36/36"))
	for _, name := range []string{brokenNode, healthyNode} {
		if !strings.Contains(scr, name+" ") {
			t.Errorf("160 columns: %s is cut:\n%s", name, scr)
		}
	}
}
