package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// hostileLiveDir copies testdata/live to a directory of its own, each file changed by
// replacing old with new once per pair, and returns it.
func hostileLiveDir(t *testing.T, changes map[string][][2]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"kube.yaml", "karpenter.yaml", "ec2.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "live", f))
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		for _, c := range changes[f] {
			if !strings.Contains(text, c[0]) {
				t.Fatalf("%s holds no %q to change", f, c[0])
			}
			text = strings.Replace(text, c[0], c[1], 1)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLiveNumbersOutOfRange runs check --live against answers no real cluster or account
// gives: each number out of range is a gap that names its field, no finding is computed from
// it, the run's snapshot reads back, and diff compares it with itself. The healthy twin (the
// same cluster as it is) has neither gap nor finding.
func TestLiveNumbersOutOfRange(t *testing.T) {
	const typ = `{"name": "m6i.large", "hypervisor": "nitro", "vcpus": 2, "maxENIs": 3, "defaultNetworkCardIndex": 0,
   "networkCards": [{"index": 0, "maxENIs": 3}], "ipv4PerENI": 10`
	tests := []struct {
		name     string
		changes  map[string][][2]string
		add      map[string]any // one more object the API server holds
		wantGaps []string
		wantNote string
	}{
		{name: "healthy"},
		{name: "2147483647 ENIs and addresses", changes: map[string][][2]string{"ec2.json": {{typ,
			`{"name": "m6i.large", "hypervisor": "nitro", "vcpus": 2, "maxENIs": 2147483647, "defaultNetworkCardIndex": 0,
   "networkCards": [{"index": 0, "maxENIs": 2147483647}], "ipv4PerENI": 2147483647`}}},
			wantGaps: []string{"instanceTypes[m6i.large].maxENIs: 2147483647 is out of range (0 to 1024)",
				"instanceTypes[m6i.large].ipv4PerENI: 2147483647 is out of range (0 to 1024)"}},
		{name: "maximumNetworkInterfaces -1", changes: map[string][][2]string{"ec2.json": {{`"maxENIs": 3, "defaultNetworkCardIndex"`,
			`"maxENIs": -1, "defaultNetworkCardIndex"`}}},
			wantGaps: []string{"instanceTypes[m6i.large].maxENIs: -1 is out of range (0 to 1024)"}},
		{name: "capacity.pods past int64", changes: map[string][][2]string{"kube.yaml": {{`pods: "29"`, `pods: "99999999999999999999"`}}},
			wantGaps: []string{".status.capacity.pods: 99999999999999999999 is out of range (0 to 10000000)"}},
		{name: "a 1.2 MB event message", add: map[string]any{"apiVersion": "v1", "kind": "Event",
			"metadata":       map[string]any{"name": "web-0.17e9a1b2c3d4ffff", "namespace": "shop"},
			"involvedObject": map[string]any{"kind": "Pod", "name": "web-0", "namespace": "shop"},
			"reason":         "FailedCreatePodSandBox", "type": "Warning",
			"message": "Failed to create pod sandbox: " + strings.Repeat("<x>", 400_000),
			"source":  map[string]any{"component": "kubelet", "host": "ip-10-0-1-10.us-west-2.compute.internal"},
			"count":   int64(2), "lastTimestamp": "2026-11-20T09:00:00Z"},
			wantNote: "1 string longer than 1 MiB as JSON, which no snapshot holds, was cut to 64 KiB (the cut is marked): sandboxFailures[0].message (1,200,030 bytes, 5,200,030 as JSON)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostileClusterIn(t, hostileLiveDir(t, tc.changes), "kube.yaml", "karpenter.yaml")
			if tc.add != nil {
				h.Kube.Add(tc.add)
			}
			file := filepath.Join(t.TempDir(), "run.json")
			r, _ := h.run(t, "check", "-o", "json", "--save-snapshot", file)
			if r.code != ExitOK && r.code != ExitFindings {
				t.Fatalf("check: exit %d\n%s", r.code, r.stderr)
			}
			var rep jsonReport
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("decoding the report: %v\n%s", err, r.stdout)
			}
			for _, want := range tc.wantGaps {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("report: want a gap saying %q\n%+v", want, rep.Gaps)
				}
			}
			if tc.wantNote != "" && !strings.Contains(r.stdout, tc.wantNote) {
				t.Errorf("report: want a note saying %q", tc.wantNote)
			}
			if len(tc.wantGaps) == 0 && len(rep.Gaps) > 0 {
				t.Errorf("the healthy twin: gaps %+v, want none", rep.Gaps)
			}
			for _, f := range rep.Findings {
				if f.ID != "data-unavailable" {
					t.Errorf("finding %s on %s: %s: want none computed from a number out of range", f.ID, f.Resource, f.Message)
				}
			}
			if regexp.MustCompile(`2147483647|4611686011984936964|7766279631452241919|-1 ENIs`).MatchString(r.stdout) &&
				!strings.Contains(r.stdout, "out of range") {
				t.Errorf("the report prints a figure computed from a number out of range:\n%s", r.stdout)
			}
			o, _, _ := newTestOptions()
			if c := runWith(t, o, "check", "--snapshot", file, "-o", "json"); c.code != ExitOK && c.code != ExitFindings {
				t.Fatalf("check --snapshot of the run's own snapshot: exit %d\n%s", c.code, c.stderr)
			}
			o, _, _ = newTestOptions()
			if d := runWith(t, o, "diff", file, file); d.code != ExitOK {
				t.Fatalf("diff of the run's snapshot with itself: exit %d\n%s", d.code, d.stderr)
			}
		})
	}
}

// TestMaxPodsLiveOutOfRange asks EC2 for types it answers with numbers out of range:
// max-pods names the field and prints no figure, never a negative or wrapped one.
func TestMaxPodsLiveOutOfRange(t *testing.T) {
	sim := maxPodsEC2(t, "us-west-2")
	for _, tc := range []struct {
		name        string
		enis, ipv4s int32
		want        string
	}{
		{"2147483647 ENIs and addresses", 2147483647, 2147483647, "instanceTypes[m5.large].maxENIs: 2147483647 is out of range (0 to 1024)"},
		{"-1 ENIs", -1, 10, "instanceTypes[m5.large].maxENIs: -1 is out of range (0 to 1024)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := maxPodsTypes()[0]
			bad.Name, bad.MaxENIs, bad.IPv4PerENI = "m5.large", tc.enis, tc.ipv4s
			for i := range bad.NetworkCards {
				bad.NetworkCards[i].MaxENIs = tc.enis
			}
			sim.AddInstanceTypes(bad)
			r := run(t, "max-pods", "--live", "--prefix-delegation", "m5.large")
			wantCode(t, r, ExitCollect)
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr: got %q, want it to say %q", r.stderr, tc.want)
			}
			if regexp.MustCompile(`(^|\s)-\d`).MatchString(r.stdout) || r.stdout != "" {
				t.Errorf("stdout: got %q, want no figure", r.stdout)
			}
		})
	}
}

// TestCiliumFirstIndexOutOfRangePrinted checks what check and describe say of a demo-cilium
// snapshot whose CiliumNodes have first-interface-index -5: a note names the value, no Cilium
// finding is printed, and the node's Cilium section says the index is out of range instead of
// a capacity or which interfaces are for pods.
func TestCiliumFirstIndexOutOfRangePrinted(t *testing.T) {
	s, err := demo.SnapshotOf(demo.CiliumContext)
	if err != nil {
		t.Fatal(err)
	}
	first := int32(-5)
	for i := range s.CiliumNodes {
		s.CiliumNodes[i].FirstInterfaceIndex = &first
	}
	file := filepath.Join(t.TempDir(), "cilium.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.Write(f, s); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := run(t, "check", "--snapshot", file)
	if r.code != ExitOK && r.code != ExitFindings {
		t.Fatalf("check: exit %d\n%s", r.code, r.stderr)
	}
	if want := "spec.eni.first-interface-index -5 is out of range (0 to 3, the interfaces of m5.large)"; !strings.Contains(r.stderr, want) {
		t.Errorf("check's stderr %q: want a note saying %q", r.stderr, want)
	}
	if strings.Contains(r.stdout, "cilium-max-pods") || strings.Contains(r.stdout, "cilium-eni-selection") {
		t.Errorf("check printed a Cilium finding computed from the index:\n%s", r.stdout)
	}
	d := run(t, "describe", "node", "ip-10-1-23-30.us-west-2.compute.internal", "--snapshot", file)
	wantCode(t, d, ExitOK)
	for _, want := range []string{"-5 (out of range (0 to 3, the interfaces of m5.large)", "whether for pods is"} {
		if !strings.Contains(d.stdout, want) {
			t.Errorf("describe: want %q in\n%s", want, d.stdout)
		}
	}
}
