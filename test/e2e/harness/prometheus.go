package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The Prometheus the exporter tests scrape with: Debian's package (2.42), which brings promtool.
const (
	prometheusPackage      = "prometheus"
	prometheusBin          = "/usr/bin/prometheus"
	promtoolBin            = "/usr/bin/promtool"
	prometheusReadyTimeout = 60 * time.Second
)

// Prometheus is a Prometheus server on 127.0.0.1 with its data in a directory of its own. The
// package's own service is never used: the server is started here and stopped by Close.
type Prometheus struct {
	// URL is the server's address, http://127.0.0.1:PORT.
	URL  string
	proc *proc
}

// PromtoolBinary returns promtool, installing Debian's prometheus package when it is missing
// (as root; otherwise the error says what to install).
func PromtoolBinary(ctx context.Context) (string, error) {
	if err := prometheusInstalled(ctx); err != nil {
		return "", err
	}
	return promtoolBin, nil
}

// prometheusInstalled installs Debian's prometheus package unless /usr/bin/prometheus and
// /usr/bin/promtool are there. Services are kept from starting during the install with a
// policy-rc.d that refuses them, when the machine has none.
func prometheusInstalled(ctx context.Context) error {
	if kubeIsExecutable(prometheusBin) && kubeIsExecutable(promtoolBin) {
		return nil
	}
	const hint = "run apt-get install -y prometheus (Debian; it brings promtool)"
	if os.Geteuid() != 0 {
		return fmt.Errorf("prometheus and promtool are not installed: %s", hint)
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("prometheus is not installed and there is no apt-get: %s", hint)
	}
	const policy = "/usr/sbin/policy-rc.d"
	if _, err := os.Stat(policy); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(policy, []byte("#!/bin/sh\n# Written by karpnet's e2e harness while it installs prometheus.\nexit 101\n"), 0o755); err != nil {
			return fmt.Errorf("keeping services from starting during the install: %w; %s", err, hint)
		}
		defer os.Remove(policy)
	}
	fmt.Fprintln(os.Stderr, "harness: prometheus is not installed; running apt-get install -y prometheus")
	install := []string{"install", "-y", "--no-install-recommends", prometheusPackage}
	out, err := kubeAptGet(ctx, install...)
	if err != nil {
		if upd, uerr := kubeAptGet(ctx, "update"); uerr != nil {
			return fmt.Errorf("apt-get update failed: %w\n%s\n%s", uerr, upd, hint)
		}
		out, err = kubeAptGet(ctx, install...)
	}
	if err != nil {
		return fmt.Errorf("apt-get install prometheus failed: %w\n%s\n%s", err, kubeLastLines(string(out), 20), hint)
	}
	if !kubeIsExecutable(prometheusBin) || !kubeIsExecutable(promtoolBin) {
		return fmt.Errorf("apt-get installed prometheus but %s or %s is missing: %s", prometheusBin, promtoolBin, hint)
	}
	return nil
}

// Promtool runs promtool with args and stdin, and returns its combined output; a non-zero
// exit is an error carrying the output.
func Promtool(ctx context.Context, stdin []byte, args ...string) (string, error) {
	bin, err := PromtoolBinary(ctx)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("promtool %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// StartPrometheus starts Prometheus with config (a prometheus.yml; rule files it names are
// relative to dir) and its data in dir, on a free port of 127.0.0.1, and waits until it is
// ready. It stops on Close or when ctx is done.
func StartPrometheus(ctx context.Context, dir, config string) (*Prometheus, error) {
	if err := prometheusInstalled(ctx); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	p, err := startProc(ctx, "prometheus", filepath.Join(dir, "prometheus.log"), nil, prometheusBin,
		"--config.file="+cfgPath,
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--log.level=warn",
	)
	if err != nil {
		return nil, err
	}
	pr := &Prometheus{URL: "http://" + addr, proc: p}
	client := &http.Client{Timeout: 2 * time.Second}
	err = p.waitReady(ctx, prometheusReadyTimeout, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, pr.URL+"/-/ready", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/-/ready answered %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("starting prometheus: %w", err)
	}
	return pr, nil
}

// Close stops the server and waits for it to exit.
func (p *Prometheus) Close() error { return p.proc.stop() }

// LogTail returns the last n lines of the server's log.
func (p *Prometheus) LogTail(n int) string { return p.proc.logTail(n) }

// Sample is one series of an instant query's answer.
type Sample struct {
	Metric map[string]string `json:"metric"`
	// Value is [time, "value"] as the API answers it.
	Value [2]any `json:"value"`
}

// Number returns the sample's value.
func (s Sample) Number() string {
	v, _ := s.Value[1].(string)
	return v
}

// Query runs an instant query through the HTTP API and returns its vector.
func (p *Prometheus) Query(ctx context.Context, query string) ([]Sample, error) {
	var answer struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string   `json:"resultType"`
			Result     []Sample `json:"result"`
		} `json:"data"`
	}
	if err := p.get(ctx, "/api/v1/query?query="+url.QueryEscape(query), &answer); err != nil {
		return nil, err
	}
	if answer.Status != "success" || answer.Data.ResultType != "vector" {
		return nil, fmt.Errorf("query %q: %s %s (result type %q)", query, answer.Status, answer.Error, answer.Data.ResultType)
	}
	return answer.Data.Result, nil
}

// Rule is one alerting or recording rule as /api/v1/rules lists it.
type Rule struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Health string `json:"health"`
	State  string `json:"state"`
	Error  string `json:"lastError"`
}

// Rules returns the rules the server loaded, by group.
func (p *Prometheus) Rules(ctx context.Context) (map[string][]Rule, error) {
	var answer struct {
		Data struct {
			Groups []struct {
				Name  string `json:"name"`
				Rules []Rule `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	if err := p.get(ctx, "/api/v1/rules", &answer); err != nil {
		return nil, err
	}
	out := map[string][]Rule{}
	for _, g := range answer.Data.Groups {
		out[g.Name] = g.Rules
	}
	return out, nil
}

func (p *Prometheus) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: decoding the answer (%s): %w", path, resp.Status, err)
	}
	return nil
}
