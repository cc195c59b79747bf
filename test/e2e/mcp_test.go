package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// inspectorVersion is the MCP Inspector whose CLI mode drives `kubectl karpnet demo mcp` as
// an assistant's client would: the last release line whose CLI runs on Node.js 20.
const inspectorVersion = "0.21.1"

var (
	inspectorOnce sync.Once
	inspectorBin  string
	inspectorErr  error
)

// inspectorBinary returns the MCP Inspector installed from npm into the e2e cache
// ($KARPNET_E2E_CACHE, else karpnet-e2e under the user cache directory), installing it first
// when it is not there. Without npm, or when the install fails, the test fails with the reason:
// the MCP server is never left untested.
func inspectorBinary(t *testing.T) string {
	t.Helper()
	inspectorOnce.Do(func() {
		cache, err := e2eCache()
		if err != nil {
			inspectorErr = err
			return
		}
		dir := filepath.Join(cache, "mcp-inspector-"+inspectorVersion)
		inspectorBin = filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
		if _, err := os.Stat(inspectorBin); err == nil {
			return
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			inspectorErr = fmt.Errorf("npm is not on PATH (install Node.js 20 or newer): %w", err)
			return
		}
		if err := os.MkdirAll(cache, 0o755); err != nil {
			inspectorErr = err
			return
		}
		tmp, err := os.MkdirTemp(cache, ".mcp-inspector.")
		if err != nil {
			inspectorErr = err
			return
		}
		defer os.RemoveAll(tmp)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		start := time.Now()
		cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--loglevel", "error", "--prefix", tmp,
			"@modelcontextprotocol/inspector@"+inspectorVersion)
		if out, err := cmd.CombinedOutput(); err != nil {
			inspectorErr = fmt.Errorf("npm install @modelcontextprotocol/inspector@%s: %v\n%s", inspectorVersion, err, tail(string(out), 20))
			return
		}
		// Renamed whole into place: a run that is interrupted leaves no half install behind.
		if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
			if _, statErr := os.Stat(inspectorBin); statErr != nil {
				inspectorErr = err
				return
			}
		}
		fmt.Fprintf(os.Stderr, "e2e: installed @modelcontextprotocol/inspector %s in %s into %s\n", inspectorVersion,
			time.Since(start).Round(time.Second), dir)
	})
	if inspectorErr != nil {
		t.Fatalf("the MCP Inspector is needed to test kubectl karpnet mcp: %v", inspectorErr)
	}
	return inspectorBin
}

// e2eCache is the directory the e2e suite caches what it installs in: $KARPNET_E2E_CACHE,
// else karpnet-e2e under the user cache directory.
func e2eCache() (string, error) {
	if dir := os.Getenv("KARPNET_E2E_CACHE"); dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a cache directory: %w; set KARPNET_E2E_CACHE", err)
	}
	return filepath.Join(base, "karpnet-e2e"), nil
}

// inspect runs the Inspector's CLI against `kubectl-karpnet demo mcp` (the built binary, as an
// assistant starts it) and returns what it printed: the server's answer as JSON.
func inspect(t *testing.T, inspector string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli", filepath.Join(env.binDir, "kubectl-karpnet"), "demo", "mcp"}, args...)...)
	cmd.Env = baseEnv()
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("mcp-inspector --cli kubectl-karpnet demo mcp %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr)
	}
	return out
}

// toolAnswer is a tools/call result as the Inspector prints it.
type toolAnswer struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// callTool calls tool with args (name=value, values as the Inspector reads them) and returns
// its text answer and whether it is a tool error.
func callTool(t *testing.T, inspector, tool string, args ...string) (string, bool) {
	t.Helper()
	cli := []string{"--method", "tools/call", "--tool-name", tool}
	for _, a := range args {
		cli = append(cli, "--tool-arg", a)
	}
	var a toolAnswer
	out := inspect(t, inspector, cli...)
	if err := json.Unmarshal(out, &a); err != nil || len(a.Content) != 1 || a.Content[0].Type != "text" {
		t.Fatalf("%s %v: not one text answer (%v):\n%s", tool, args, err, out)
	}
	return a.Content[0].Text, a.IsError
}

// TestMCPAssistantSession drives `kubectl karpnet demo mcp` with the MCP Inspector's CLI as an
// assistant would: list the tools, list the demo's critical findings, open the sheet of a node
// one of them is on, explain its check; a bad argument is a tool error of one line. The session
// is written as a transcript (mcp-transcript.md in the e2e cache's artifacts directory, or
// $KARPNET_E2E_ARTIFACTS).
func TestMCPAssistantSession(t *testing.T) {
	inspector := inspectorBinary(t)
	var tr strings.Builder
	fmt.Fprintf(&tr, "# An assistant's session with `kubectl karpnet demo mcp`\n\n"+
		"Client: @modelcontextprotocol/inspector %s (--cli), against the built binary.\n", inspectorVersion)
	step := func(title, request, answer string) {
		size := len(answer)
		var indented bytes.Buffer
		if json.Indent(&indented, []byte(answer), "", "  ") == nil {
			answer = indented.String()
		}
		fmt.Fprintf(&tr, "\n## %s\n\n```\n%s\n```\n\n%d bytes:\n\n```\n%s\n```\n", title, request, size, strings.TrimRight(answer, "\n"))
	}

	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations struct {
				ReadOnlyHint bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	out := inspect(t, inspector, "--method", "tools/list")
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if !tl.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tl.Name)
		}
	}
	if want := []string{"check", "describe", "diff", "explain", "max-pods"}; !slices.Equal(names, want) {
		t.Fatalf("tools: got %v, want %v", names, want)
	}
	step("The tools", "tools/list", strings.Join(names, "\n"))

	// "What is critical in this cluster?"
	text, isErr := callTool(t, inspector, "check", "minSeverity=critical", "limit=100")
	if isErr {
		t.Fatalf("check: %s", text)
	}
	var check struct {
		Summary struct {
			Findings struct{ Total int } `json:"findings"`
		} `json:"summary"`
		Findings []struct {
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Node     string `json:"node"`
			Resource string `json:"resource"`
			Message  string `json:"message"`
			Commands []struct {
				Argv []string `json:"argv"`
			} `json:"commands"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(text), &check); err != nil {
		t.Fatalf("check: %v\n%s", err, text)
	}
	var ids []string
	node, nodeCheck := "", ""
	for _, f := range check.Findings {
		if f.Severity != "critical" {
			t.Errorf("minSeverity critical listed %s %s", f.Severity, f.ID)
		}
		ids = append(ids, f.ID)
		if node == "" && f.ID == "max-pods-exceeds-ip-capacity" {
			node, nodeCheck = f.Node, f.ID
		}
	}
	for _, want := range []string{"subnet-ip-exhaustion", "max-pods-exceeds-ip-capacity", "nodeclaim-not-registered", "nodeclass-not-ready"} {
		if !slices.Contains(ids, want) {
			t.Errorf("the demo's criticals lack %s: %v", want, ids)
		}
	}
	if check.Summary.Findings.Total != len(check.Findings) || node == "" {
		t.Fatalf("check: %d of %d criticals, node %q", len(check.Findings), check.Summary.Findings.Total, node)
	}
	step("\"What is critical in this cluster?\": check", "tools/call check minSeverity=critical limit=100", text)

	// "Show me that node."
	text, isErr = callTool(t, inspector, "describe", "kind=node", fmt.Sprintf(`names=["%s"]`, node), "format=text")
	if isErr || !strings.HasPrefix(text, "node/"+node) || !strings.Contains(text, nodeCheck) {
		t.Fatalf("describe node %s (error %v):\n%s", node, isErr, text)
	}
	step("\"Show me that node.\": describe", fmt.Sprintf(`tools/call describe kind=node names=["%s"] format=text`, node), text)

	// "What does that check mean?"
	text, isErr = callTool(t, inspector, "explain", fmt.Sprintf(`ids=["%s"]`, nodeCheck), "format=text")
	if isErr || !strings.HasPrefix(text, nodeCheck) || !strings.Contains(text, "Fires when") {
		t.Fatalf("explain %s (error %v):\n%s", nodeCheck, isErr, text)
	}
	step("\"What does that check mean?\": explain", fmt.Sprintf(`tools/call explain ids=["%s"] format=text`, nodeCheck), text)

	// A slip: the answer is a tool error the assistant can act on.
	text, isErr = callTool(t, inspector, "check", "minSeverity=urgent")
	if !isErr || strings.Contains(text, "\n") || !strings.Contains(text, "use critical, warning or info") {
		t.Errorf("check minSeverity=urgent: error %v, %q", isErr, text)
	}
	step("A bad argument is a tool error", "tools/call check minSeverity=urgent", text)

	dir := os.Getenv("KARPNET_E2E_ARTIFACTS")
	if dir == "" {
		cache, err := e2eCache()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(cache, "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path, _ := filepath.Abs(filepath.Join(dir, "mcp-transcript.md"))
	if err := os.WriteFile(path, []byte(tr.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("transcript: %s", path)
}
