package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/cischema"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil"
	"github.com/karpnet/kubectl-karpnet/test/e2e/harness"
)

// The access keys of the two clusters' AWS profiles: moto takes any and puts both in its one
// account, 123456789012, so requests are told apart by key.
const (
	alphaKey = "AKIAALPHAE2ETESTKEY1"
	bravoKey = "AKIABRAVOE2ETESTKEY2"
)

// TestSeveralClusters reads three kubeconfig contexts in one run: alpha (the suite's API
// server, healthy), bravo (a second kube-apiserver on its own etcd, a node whose instance is
// terminated) and down (a closed port). Both reachable clusters are in one moto, one account
// and Region, each in its own VPC; their credentials come from their kubeconfig's `aws eks
// get-token` plugin: --profile alpha in its arguments, AWS_PROFILE=bravo in its env.
func TestSeveralClusters(t *testing.T) {
	alpha := newHealthyCluster(t) // resets moto and the suite's API server
	kubeB, err := harness.StartKube(t.Context(), filepath.Join(t.TempDir(), "kube-bravo"))
	if err != nil {
		t.Fatalf("starting the second etcd and kube-apiserver: %v", err)
	}
	defer kubeB.Close()
	bravo := newBravoCluster(t, alpha.world, kubeB)
	kubeconfig, awsEnv := severalContexts(t, kubeB)
	opts := runOpts{kubeconfig: kubeconfig, env: awsEnv}

	if err := env.moto.ResetRequests(t.Context()); err != nil {
		t.Fatal(err)
	}
	text := karpnet(t, opts, "check", "--contexts", "alpha,bravo,down")
	wantCode(t, text, 3) // down could not be read (bravo has a critical finding too)
	callers, err := env.moto.Callers(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	inFlight, err := env.moto.MaxInFlight(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	testutil.Assert(t, filepath.Join("testdata", "several-clusters.table.golden"), stableIDs(stable(text.stdout)))

	// The shared budget: each cluster made its own requests (counted by its profile's key),
	// and together they never had more in flight than one account and Region allows, plus the
	// one request a cluster makes alone while its account is not known yet (docs/clusters.md).
	total := func(actions map[string]int) (n int) {
		for _, c := range actions {
			n += c
		}
		return n
	}
	a, b := total(callers[alphaKey]), total(callers[bravoKey])
	t.Logf("EC2 requests: alpha %d %v, bravo %d %v; most in flight at once %d", a, callers[alphaKey], b, callers[bravoKey], inFlight)
	if a == 0 || b == 0 || len(callers) != 2 {
		t.Errorf("requests per caller: got %v, want requests from exactly the two profiles' keys", callers)
	}
	if inFlight < 1 || inFlight > 4+1 {
		t.Errorf("EC2 requests in flight at once: got %d, want at most 5 (4 per account and Region, +1 while learning)", inFlight)
	}
	// Each cluster alone makes the same requests: the budget spaces them, it adds none.
	for ctx, key := range map[string]string{"alpha": alphaKey, "bravo": bravoKey} {
		if err := env.moto.ResetRequests(t.Context()); err != nil {
			t.Fatal(err)
		}
		karpnet(t, opts, "check", "--contexts", ctx)
		alone, err := env.moto.Callers(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := total(alone[key]), total(callers[key]); got != want {
			t.Errorf("%s alone: %d EC2 requests %v, want the %d it made with the others", ctx, got, alone[key], want)
		}
	}

	j := karpnet(t, opts, "check", "--contexts", "alpha,bravo,down", "-o", "json", "--allow-unreachable")
	wantCode(t, j, 1) // bravo has a critical finding
	testutil.Assert(t, filepath.Join("testdata", "several-clusters.json.golden"), stableIDs(clustersView(t, j.stdout)))
	var rep struct {
		Clusters []struct{ Context, ClusterName, Region, Account, Status, Gap string } `json:"clusters"`
		Nodes    []struct{ Context string }                                            `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha e2e us-west-2 123456789012 ok", "bravo e2e-bravo us-west-2 123456789012 critical", "down    unreachable"}
	for i, c := range rep.Clusters {
		if got := strings.Join([]string{c.Context, c.ClusterName, c.Region, c.Account, c.Status}, " "); i >= len(want) || got != want[i] {
			t.Errorf("clusters[%d]: got %q, want %q", i, got, want[min(i, len(want)-1)])
		}
	}
	if len(rep.Nodes) != len(alpha.nodes)+len(bravo) {
		t.Errorf("nodes: got %d, want %d", len(rep.Nodes), len(alpha.nodes)+len(bravo))
	}

	// The CI formats over the three: valid against their schemas, every subject and result in
	// its cluster, and the exit code the text report had.
	junit := karpnet(t, opts, "check", "--contexts", "alpha,bravo,down", "-o", "junit")
	wantCode(t, junit, 3)
	cischema.ValidateJUnit(t, []byte(junit.stdout))
	for _, want := range []string{`name="alpha: node/`, `name="bravo: node/`, `<failure`, `name="down: kubernetes"`} {
		if !strings.Contains(junit.stdout, want) {
			t.Errorf("the JUnit report over alpha, bravo and down lacks %s", want)
		}
	}
	sarif := karpnet(t, opts, "check", "--contexts", "alpha,bravo,down", "-o", "sarif")
	wantCode(t, sarif, 3)
	cischema.ValidateSARIF(t, []byte(sarif.stdout))
	for _, want := range []string{`"uri": "context/bravo/node/`, `"uri": "context/down/`} {
		if !strings.Contains(sarif.stdout, want) {
			t.Errorf("the SARIF log over alpha, bravo and down lacks %s", want)
		}
	}

	for _, tc := range []struct {
		args []string
		code int
	}{{[]string{"alpha,down"}, 3}, {[]string{"alpha,down", "--allow-unreachable"}, 0}, {[]string{"down"}, 3}} {
		r := karpnet(t, opts, append([]string{"check", "--contexts"}, tc.args...)...)
		wantCode(t, r, tc.code)
	}

	file := filepath.Join(t.TempDir(), "several.json.gz")
	saved := karpnet(t, opts, "check", "--contexts", "alpha,bravo,down", "-o", "wide", "--save-snapshot", file)
	replay := karpnet(t, runOpts{kubeconfig: filepath.Join(t.TempDir(), "none"), env: []string{"AWS_ENDPOINT_URL_EC2=http://127.0.0.1:1"}},
		"check", "-o", "wide", "--snapshot", file)
	wantCode(t, replay, 3)
	if replay.stdout != saved.stdout {
		t.Errorf("replayed report differs:\n--- live\n%s\n--- replay\n%s", saved.stdout, replay.stdout)
	}
}

// newBravoCluster builds the second cluster on kube: its own VPC in the same moto, one
// healthy node and one whose instance is terminated, tagged for the cluster e2e-bravo.
// It returns the nodes' names.
func newBravoCluster(t *testing.T, alpha *world, kube *harness.Kube) []string {
	t.Helper()
	ctx := t.Context()
	if err := kube.InstallCRDs(ctx, harness.CRDsV1); err != nil {
		t.Fatalf("installing the CRDs on the second API server: %v", err)
	}
	w := &world{t: t, ec2: alpha.ec2}
	var err error
	if w.kube, err = kubernetes.NewForConfig(kube.Admin); err != nil {
		t.Fatal(err)
	}
	if w.dyn, err = dynamic.NewForConfig(kube.Admin); err != nil {
		t.Fatal(err)
	}
	vpc, err := w.ec2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.1.0.0/16")})
	if err != nil {
		t.Fatalf("creating the second VPC: %v", err)
	}
	w.vpcID = aws.ToString(vpc.Vpc.VpcId)
	w.dnsHostnames(w.vpcID)
	w.natWayOut(w.vpcID, "10.1.255.240/28")
	sn := subnetRef{id: w.subnet("10.1.0.0/20", "us-west-2a"), zone: "us-west-2a"}
	sgs := []string{w.securityGroup("eks-cluster-sg-bravo", true)}
	w.nodeClass(nodeClassSpec{name: "default", subnets: []subnetRef{sn}, sgs: sgs})
	w.nodePool("general", "v1", "default", []string{"us-west-2a"}, 0)
	w.awsNode(map[string]string{"WARM_ENI_TARGET": "1"})
	var names []string
	for i, ip := range []string{"10.1.0.10", "10.1.0.20"} {
		in := w.instance(instanceSpec{typ: "m5.large", subnet: sn.id, sgs: sgs, ip: ip})
		name := fmt.Sprintf("ip-10-1-0-%d0.us-west-2.compute.internal", i+1)
		w.karpenterNode(name, "general", "default", "v1", in, 29, nil)
		id := aws.ToString(in.InstanceId)
		// karpenterNode tags for the suite's cluster; this one is e2e-bravo.
		if _, err := w.ec2.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: []string{id},
			Tags: []ec2types.Tag{{Key: aws.String("kubernetes.io/cluster/" + e2eClusterName)}}}); err != nil {
			t.Fatal(err)
		}
		w.tag(id, "kubernetes.io/cluster/e2e-bravo", "owned")
		if i == 1 {
			if _, err := w.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{id}}); err != nil {
				t.Fatalf("terminating %s: %v", id, err)
			}
		}
		names = append(names, name)
	}
	return names
}

// severalContexts writes a kubeconfig with the contexts alpha, bravo and down, whose users get
// their tokens from a stand-in for `aws eks get-token` (as `aws eks update-kubeconfig
// --profile` writes it), and an AWS configuration with the profiles alpha and bravo. It
// returns the kubeconfig's path and the environment that selects that AWS configuration.
func severalContexts(t *testing.T, kubeB *harness.Kube) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "aws")
	script := "#!/bin/sh\n# Stands in for `aws eks get-token`: prints the token of $E2E_TOKEN.\n" +
		`printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"}}' "$E2E_TOKEN"` + "\n"
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	closed := closedPort(t)
	cfg := clientcmdapi.NewConfig()
	exec := func(cluster, token string, args []string, env ...clientcmdapi.ExecEnvVar) *clientcmdapi.AuthInfo {
		return &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
			APIVersion: "client.authentication.k8s.io/v1beta1", Command: plugin, InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
			Args: append([]string{"--region", region, "eks", "get-token", "--cluster-name", cluster, "--output", "json"}, args...),
			Env:  append([]clientcmdapi.ExecEnvVar{{Name: "E2E_TOKEN", Value: token}}, env...),
		}}
	}
	cfg.Clusters["alpha"] = &clientcmdapi.Cluster{Server: env.kube.URL, InsecureSkipTLSVerify: true}
	cfg.Clusters["bravo"] = &clientcmdapi.Cluster{Server: kubeB.URL, InsecureSkipTLSVerify: true}
	cfg.Clusters["down"] = &clientcmdapi.Cluster{Server: fmt.Sprintf("https://127.0.0.1:%d", closed), InsecureSkipTLSVerify: true}
	cfg.AuthInfos["alpha"] = exec("e2e", env.kube.Admin.BearerToken, []string{"--profile", "alpha"})
	cfg.AuthInfos["bravo"] = exec("e2e-bravo", kubeB.Admin.BearerToken, nil, clientcmdapi.ExecEnvVar{Name: "AWS_PROFILE", Value: "bravo"})
	cfg.AuthInfos["down"] = &clientcmdapi.AuthInfo{Token: "unused"}
	for _, name := range []string{"alpha", "bravo", "down"} {
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	cfg.CurrentContext = "alpha"
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "aws-config")
	credentials := filepath.Join(dir, "aws-credentials")
	if err := os.WriteFile(config, []byte("[profile alpha]\nregion = us-west-2\n\n[profile bravo]\nregion = us-west-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(credentials, []byte(fmt.Sprintf("[alpha]\naws_access_key_id = %s\naws_secret_access_key = x\n\n"+
		"[bravo]\naws_access_key_id = %s\naws_secret_access_key = x\n", alphaKey, bravoKey)), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, []string{"AWS_CONFIG_FILE=" + config, "AWS_SHARED_CREDENTIALS_FILE=" + credentials}
}

// closedPort returns a 127.0.0.1 port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

var (
	localPort = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	timestamp = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\b`)
)

// stable makes the output of a run comparable with a golden file: the 127.0.0.1 ports and
// the times of the run become PORT and TIME.
func stable(s string) string {
	return timestamp.ReplaceAllString(localPort.ReplaceAllString(s, "127.0.0.1:PORT"), "TIME")
}

// clustersView is what the golden file of the JSON report holds: the clusters, and each node
// and finding with its context (the rest is the single-cluster report, tested elsewhere).
func clustersView(t *testing.T, stdout string) string {
	t.Helper()
	var rep struct {
		Clusters []struct {
			Context     string `json:"context"`
			ClusterName string `json:"clusterName,omitempty"`
			Region      string `json:"region,omitempty"`
			Account     string `json:"account,omitempty"`
			Status      string `json:"status"`
			Gap         string `json:"gap,omitempty"`
			Summary     struct {
				Nodes        int `json:"nodes"`
				Clean        int `json:"clean"`
				WithCritical int `json:"withCritical"`
			} `json:"summary"`
		} `json:"clusters"`
		Nodes []struct {
			Context  string `json:"context"`
			Identity struct {
				Node string `json:"node"`
			} `json:"identity"`
			Status string `json:"status"`
		} `json:"nodes"`
		Findings []struct {
			Context  string `json:"context"`
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Node     string `json:"node,omitempty"`
			Resource string `json:"resource"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("decoding the JSON report: %v\n%s", err, stdout)
	}
	out, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return stable(string(out)) + "\n"
}
