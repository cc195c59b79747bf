package cmd

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
)

// TestProgressOnATerminalOnly: a collection that runs past the delay draws its progress on
// standard error in place and clears it at the end, when standard error is a terminal and
// the output is text; never on a pipe, never with -o json, yaml, junit or sarif.
func TestProgressOnATerminalOnly(t *testing.T) {
	for _, c := range []struct {
		name     string
		terminal bool
		args     []string
		want     bool
	}{
		{"terminal, table", true, []string{"check"}, true},
		{"terminal, --save-snapshot", true, []string{"check", "--save-snapshot", "SNAP"}, true},
		{"terminal, describe", true, []string{"describe", "node", liveNodeA}, true},
		{"pipe", false, []string{"check"}, false},
		{"terminal, -o json", true, []string{"check", "-o", "json"}, false},
		{"terminal, -o yaml", true, []string{"check", "-o", "yaml"}, false},
		{"terminal, -o junit", true, []string{"check", "-o", "junit"}, false},
		{"terminal, -o sarif", true, []string{"check", "-o", "sarif"}, false},
		{"terminal, describe -o json", true, []string{"describe", "node", liveNodeA, "-o", "json"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			lc := newLiveCluster(t)
			lc.sim.SetLatency(30 * time.Millisecond) // every EC2 call, so the collection lasts a few ticks
			o := lc.options()
			o.progressDelay, o.progressEvery = 0, time.Millisecond
			o.isTerminal = func(w any) bool { return c.terminal && w == o.ErrOut }
			args := c.args
			for i, a := range args {
				if a == "SNAP" {
					args[i] = t.TempDir() + "/snap.json"
				}
			}
			r := runWith(t, o, args...)
			if r.code != ExitOK && r.code != ExitFindings {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			drawn := strings.Contains(r.stderr, "\rcollecting (")
			if drawn != c.want {
				t.Fatalf("progress drawn = %v, want %v; stderr:\n%q", drawn, c.want, r.stderr)
			}
			if strings.Contains(r.stdout, "collecting (") {
				t.Errorf("progress on standard output:\n%q", r.stdout)
			}
			if !c.want {
				return
			}
			if !strings.Contains(r.stderr, "nodes listed, ") || !strings.Contains(r.stderr, "EC2 calls") {
				t.Errorf("progress lacks the counts:\n%q", r.stderr)
			}
			// The last line drawn is cleared before anything else is written.
			last := strings.LastIndex(r.stderr, "\rcollecting (")
			if !strings.Contains(r.stderr[last:], "\r\x1b[K") {
				t.Errorf("progress line not cleared at the end:\n%q", r.stderr[last:])
			}
		})
	}
}

func TestVerboseSaysHowEC2WasRead(t *testing.T) {
	lc := newLiveCluster(t)
	r := lc.run(t, "check", "-v", "-o", "json")
	if r.code != ExitOK && r.code != ExitFindings {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	calls := lc.sim.Total()
	for _, want := range []string{"ec2: instances read by cluster tag kubernetes.io/cluster/live=owned", "EC2 calls, 0 of them paced"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if want := thousands(calls) + " EC2 calls"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q (what EC2 answered):\n%s", want, r.stderr)
	}
	// Each instance is decoded once: the filtered read's pages are the search for the cluster's
	// other instances, and none is read again by ID.
	m := regexp.MustCompile(`([0-9,]+) instances \(([0-9,]+) decoded\)`).FindStringSubmatch(r.stderr)
	if m == nil || m[1] != m[2] || m[1] == "0" {
		t.Errorf("stderr says %q, want as many instances decoded as read, some:\n%s", m, r.stderr)
	}
	if r := lc.run(t, "check", "-o", "json"); strings.Contains(r.stderr, "ec2:") {
		t.Errorf("without -v: stderr %q, want no EC2 line", r.stderr)
	}
}

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p    collect.Progress
		want string
	}{
		{collect.Progress{Nodes: 12500, NodesExpected: 100000, Instances: 9000, EC2Calls: 14},
			"collecting (2.5s): 12,500 of 100,000 nodes listed, 9,000 instances read, 14 EC2 calls"},
		{collect.Progress{Nodes: 100000, NodesExpected: 100000, Instances: 100000, EC2Calls: 109, Paced: 59, PacedWait: 5900 * time.Millisecond},
			"collecting (2.5s): 100,000 nodes listed, 100,000 instances read, 109 EC2 calls (59 paced, 5.9s waited)"},
	} {
		if got := progressLine(c.p, 2500*time.Millisecond); got != c.want {
			t.Errorf("progressLine(%+v)\n got %q\nwant %q", c.p, got, c.want)
		}
	}
}
