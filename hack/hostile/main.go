// Command hostile serves a Kubernetes API server and an EC2 endpoint over the fixtures of
// pkg/cmd/testdata/live with one fault scenario, so that how karpnet's collection ends against
// them can be measured on the real binary:
//
//	go run ./hack/hostile -scenario kube-cycle -kubeconfig /tmp/h.kubeconfig -env /tmp/h.env &
//	env $(cat /tmp/h.env) /usr/bin/time -v kubectl-karpnet check --kubeconfig /tmp/h.kubeconfig
//
// It writes the kubeconfig and the AWS SDK environment (endpoint, static credentials, Region),
// and on SIGINT or SIGTERM prints the requests each server received. Run it without
// -scenario to list the scenarios.
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/hostile"
)

// crdPrefixes are the paths of every custom resource karpnet lists.
var crdPrefixes = []string{"/apis/karpenter.sh/", "/apis/karpenter.k8s.aws/", "/apis/eks.amazonaws.com/",
	"/apis/crd.k8s.amazonaws.com/", "/apis/vpcresources.k8s.aws/"}

const portal = `<!DOCTYPE html><html><head><title>Guest Wi-Fi</title></head><body><h1>Sign in</h1></body></html>`

// scenarios bend the cluster's answers, by name.
var scenarios = map[string]func(*hostile.Cluster){
	"healthy":       func(*hostile.Cluster) {},
	"kube-cycle":    func(c *hostile.Cluster) { c.Kube.Page("/api/v1/nodes", hostile.CycleTokens) },
	"kube-endless":  func(c *hostile.Cluster) { c.Kube.Page("/api/v1/nodes", hostile.EndlessTokens) },
	"kube-html":     func(c *hostile.Cluster) { c.Kube.Body("/api/v1/nodes", http.StatusOK, "text/html", portal) },
	"nodes-403":     func(c *hostile.Cluster) { c.Kube.Fail("/", http.StatusForbidden) },
	"node-get-403":  func(c *hostile.Cluster) { c.Kube.Fail("/api/v1/nodes/", http.StatusForbidden) },
	"node-get-500":  func(c *hostile.Cluster) { c.Kube.Fail("/api/v1/nodes/", http.StatusInternalServerError) },
	"crd-slow":      func(c *hostile.Cluster) { forEach(crdPrefixes, func(p string) { c.Kube.Delay(p, time.Hour) }) },
	"ec2-cycle":     func(c *hostile.Cluster) { c.EC2.SetTokens(ec2sim.DescribeInstances, ec2sim.CycleTokens) },
	"ec2-endless":   func(c *hostile.Cluster) { c.EC2.SetTokens(ec2sim.DescribeInstances, ec2sim.EndlessTokens) },
	"ec2-html-200":  func(c *hostile.Cluster) { c.EC2.SetBody(ec2sim.DescribeInstances, http.StatusOK, "text/html", portal) },
	"ec2-html-500":  func(c *hostile.Cluster) { ec2HTML500(c) },
	"ec2-extra-1m":  func(c *hostile.Cluster) { c.EC2.SetExtraInstances(1_000_000) },
	"ec2-extra-50k": func(c *hostile.Cluster) { c.EC2.SetExtraInstances(50_000) },
}

func ec2HTML500(c *hostile.Cluster) {
	for _, a := range []string{ec2sim.DescribeInstances, ec2sim.DescribeSubnets, ec2sim.DescribeSecurityGroups,
		ec2sim.DescribePlacementGroups, ec2sim.DescribeInstanceTypes} {
		c.EC2.SetBody(a, http.StatusInternalServerError, "text/html", "<html><body><h1>500 Internal Server Error</h1>\x1b[2J</body></html>")
	}
}

func forEach(items []string, f func(string)) {
	for _, it := range items {
		f(it)
	}
}

func main() {
	scenario := flag.String("scenario", "", "fault scenario: "+strings.Join(slices.Sorted(maps.Keys(scenarios)), ", "))
	fixtures := flag.String("fixtures", "pkg/cmd/testdata/live", "directory of kube.yaml, karpenter.yaml and ec2.json")
	kubeconfig := flag.String("kubeconfig", "hostile.kubeconfig", "file to write the kubeconfig to")
	envFile := flag.String("env", "", "file to write the AWS SDK environment to (default: standard output)")
	flag.Parse()
	if err := run(*scenario, *fixtures, *kubeconfig, *envFile); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

func run(scenario, fixtures, kubeconfig, envFile string) error {
	bend, ok := scenarios[scenario]
	if !ok {
		return fmt.Errorf("unknown scenario %q: use one of %s", scenario, strings.Join(slices.Sorted(maps.Keys(scenarios)), ", "))
	}
	c, err := hostile.LoadCluster(fixtures, "kube.yaml", "karpenter.yaml")
	if err != nil {
		return err
	}
	bend(c)
	kubeURL, err := serve(c.Kube)
	if err != nil {
		return err
	}
	ec2URL, err := serve(c.EC2)
	if err != nil {
		return err
	}
	if err := hostile.WriteKubeconfig(kubeconfig, kubeURL); err != nil {
		return err
	}
	env := fmt.Sprintf("AWS_ENDPOINT_URL_EC2=%s\nAWS_ACCESS_KEY_ID=AKIDEXAMPLE\nAWS_SECRET_ACCESS_KEY=secret\n"+
		"AWS_REGION=us-west-2\nAWS_CONFIG_FILE=/dev/null\nAWS_SHARED_CREDENTIALS_FILE=/dev/null\n", ec2URL)
	if envFile == "" {
		fmt.Print(env)
	} else if err := os.WriteFile(envFile, []byte(env), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", envFile, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	kube := c.Kube.Requests()
	methods := map[string]int{}
	for _, r := range kube {
		methods[r.Method]++
	}
	fmt.Fprintf(os.Stderr, "kubernetes requests: %d %v\nec2 requests: %d %v\n", len(kube), methods, c.EC2.Total(), c.EC2.Counts())
	return nil
}

// serve answers h on a loopback port and returns its URL.
func serve(h http.Handler) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listening: %w", err)
	}
	go func() { _ = http.Serve(l, h) }()
	return "http://" + l.Addr().String(), nil
}
