package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// kubeAlive reports whether process pid exists and is not a zombie.
func kubeAlive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// kubeStartSleepers starts a shell that runs a background sleep and writes the sleeper's pid
// to its log, and returns the shell and that pid.
func kubeStartSleepers(t *testing.T, ctx context.Context) (*proc, int) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "sleep.log")
	p, err := startProc(ctx, "sleepers", log, nil, "/bin/sh", "-c", "sleep 300 & echo $!; wait")
	if err != nil {
		t.Fatalf("startProc: %v", err)
	}
	var child int
	err = p.waitReady(t.Context(), 5*time.Second, func(context.Context) error {
		data, _ := os.ReadFile(log)
		child, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err
	})
	if err != nil {
		p.stop()
		t.Fatalf("waiting for the child pid: %v", err)
	}
	return p, child
}

func TestProcStopKillsGroup(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(p *proc, cancel context.CancelFunc) error
	}{
		{"stop", func(p *proc, _ context.CancelFunc) error { return p.stop() }},
		{"context done", func(p *proc, cancel context.CancelFunc) error {
			cancel()
			select {
			case <-p.done:
				return nil
			case <-time.After(5 * time.Second):
				return errors.New("still running 5s after cancel")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			p, child := kubeStartSleepers(t, ctx)
			defer p.stop()
			if !kubeAlive(child) {
				t.Fatalf("child %d is not running before the stop", child)
			}
			if err := tc.end(p, cancel); err != nil {
				t.Fatalf("ending the group: %v", err)
			}
			deadline := time.Now().Add(5 * time.Second)
			for kubeAlive(child) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if kubeAlive(child) {
				t.Errorf("child %d of group %d: got alive, want killed", child, p.pid())
			}
		})
	}
}

func TestProcWaitReady(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name      string
		script    string
		probe     func(context.Context) error
		wantErr   string
		wantClash bool
	}{
		{"ready", "sleep 30", func(context.Context) error { return nil }, "", false},
		{"exits early", "echo bind: address already in use; exit 3",
			func(context.Context) error { return errors.New("not yet") }, "exited before it was ready", true},
		{"times out", "echo still starting; sleep 30",
			func(context.Context) error { return errors.New("not yet") }, "not ready after", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".log")
			p, err := startProc(t.Context(), tc.name, log, nil, "/bin/sh", "-c", tc.script)
			if err != nil {
				t.Fatalf("startProc: %v", err)
			}
			defer p.stop()
			err = p.waitReady(t.Context(), 500*time.Millisecond, tc.probe)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("waitReady: got %v, want no error", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("waitReady: got %v, want an error containing %q", err, tc.wantErr)
			case tc.wantErr != "":
				data, _ := os.ReadFile(log)
				if first := strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0]); !strings.Contains(err.Error(), first) {
					t.Errorf("waitReady error %q does not quote the log line %q", err, first)
				}
			}
			if got := p.portClash(); got != tc.wantClash {
				t.Errorf("portClash: got %t, want %t", got, tc.wantClash)
			}
		})
	}
}

func TestFreePorts(t *testing.T) {
	ports, err := freePorts(3)
	if err != nil {
		t.Fatalf("freePorts: %v", err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || p > 65535 || seen[p] {
			t.Errorf("ports %v: got %d, want distinct ports in 1-65535", ports, p)
		}
		seen[p] = true
	}
}

// TestProcMemoryReadsRSS: a running process's memory is read from /proc, its peak at least
// what it holds now; a stopped one's is an error.
func TestProcMemoryReadsRSS(t *testing.T) {
	p, _ := kubeStartSleepers(t, t.Context())
	m, err := p.memory()
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.Peak < m.RSS {
		t.Fatalf("memory %+v, want a resident size and a peak at least as large", m)
	}
	p.stop()
	if _, err := (&proc{name: "none"}).memory(); err == nil {
		t.Fatal("the memory of a process never started was read")
	}
}
