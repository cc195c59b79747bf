package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// dashboard is the part of deploy/grafana/karpnet.json the test reads.
type dashboard struct {
	UID    string `json:"uid"`
	Title  string `json:"title"`
	Panels []struct {
		Title      string `json:"title"`
		Type       string `json:"type"`
		Datasource *struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// grafanaVariables are the Grafana variables the dashboard's queries use, as Grafana
// substitutes them at a 1-minute resolution.
var grafanaVariables = strings.NewReplacer("$__rate_interval", "1m", "$__interval", "1m", "$__range", "1h")

// TestServeGrafanaDashboard runs every query of deploy/grafana/karpnet.json against a real
// Prometheus scraping serve over a cluster with prefix delegation, a fragmented subnet and a
// leaked interface: each query must answer with at least one series.
func TestServeGrafanaDashboard(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(deployDir(), "grafana", "karpnet.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("deploy/grafana/karpnet.json: %v", err)
	}
	if d.UID != "karpnet" || d.Title == "" {
		t.Errorf("dashboard uid %q, title %q: want uid karpnet and a title", d.UID, d.Title)
	}
	var queries []string
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" || len(p.Targets) == 0 {
			t.Errorf("panel %q: want the ${datasource} variable and at least one query", p.Title)
		}
		for _, tg := range p.Targets {
			queries = append(queries, tg.Expr)
		}
	}

	c := newAddressCluster(t)
	w := c.world
	small := subnetRef{w.subnet("10.0.66.0/26", "us-west-2b"), "us-west-2b"}
	sgs := []string{w.securityGroup("e2e-small-nodes", false)}
	w.nodeClass(nodeClassSpec{name: "small", subnets: []subnetRef{small}, sgs: sgs, maxPods: 110})
	w.nodePool("small", "v1", "small", []string{"us-west-2b"}, 0)
	in := w.cniLaunch(small.id, "10.0.66.20", sgs)
	w.karpenterNode("ip-10-0-66-20.us-west-2.compute.internal", "small", "small", "v1", in, 110, nil)
	if _, err := w.ec2.CreateNetworkInterface(t.Context(), &ec2.CreateNetworkInterfaceInput{SubnetId: aws.String(small.id),
		Description: aws.String("AWS Lambda VPC ENI-resize"), PrivateIpAddress: aws.String("10.0.66.40")}); err != nil {
		t.Fatalf("creating the Lambda interface: %v", err)
	}

	s := startServeProc(t, env.kube.AdminKubeconfig, "--interval", serveInterval.String())
	waitFor(t, 30*time.Second, "serve's /readyz to answer 200", func() error {
		code, body, err := s.get("/readyz")
		if err == nil && code != http.StatusOK {
			err = fmt.Errorf("%d %s", code, body)
		}
		return err
	})
	dir := t.TempDir()
	prom, err := harness.StartPrometheus(t.Context(), filepath.Join(dir, "prometheus"), fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: karpnet
    static_configs:
      - targets: ["%s"]
`, strings.TrimPrefix(s.url, "http://")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := prom.Close(); err != nil {
			t.Errorf("stopping prometheus: %v", err)
		}
	})
	// Rates need two collections' scrapes; the free blocks need the fragmented subnet read.
	waitFor(t, 60*time.Second, "Prometheus to hold two collections", func() error {
		got, err := prom.Query(t.Context(), `karpnet_collections_total{result="success"} >= 2 and on() karpnet_subnet_free_prefix_blocks`)
		if err == nil && len(got) == 0 {
			err = fmt.Errorf("not yet")
		}
		return err
	})
	for _, q := range queries {
		expr := grafanaVariables.Replace(q)
		if strings.Contains(expr, "$") {
			t.Errorf("query %q uses a variable the test does not know", q)
			continue
		}
		var got []harness.Sample
		waitFor(t, 20*time.Second, "series for "+expr, func() error {
			var err error
			got, err = prom.Query(t.Context(), expr)
			if err == nil && len(got) == 0 {
				err = fmt.Errorf("no series")
			}
			return err
		})
		t.Logf("%s: %d series", expr, len(got))
	}
	if got, err := prom.Query(t.Context(), fmt.Sprintf(`karpnet_subnet_findings{check="subnet-prefix-fragmented", subnet=%q}`, small.id)); err != nil || len(got) != 1 {
		t.Errorf("karpnet_subnet_findings of the fragmented subnet %s: %v, %v; want one series", small.id, got, err)
	}
	if got, err := prom.Query(t.Context(), fmt.Sprintf(`karpnet_subnet_free_prefix_blocks{subnet_id=%q}`, small.id)); err != nil || len(got) != 1 || got[0].Number() != "0" {
		t.Errorf("karpnet_subnet_free_prefix_blocks of the fragmented subnet %s: %v, %v; want 0", small.id, got, err)
	}
}
