package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/internal/budget"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/serve"
	"github.com/karpnet/kubectl-karpnet/pkg/version"
)

// serveFloorEnv lowers serve's interval floor in a binary built with the karpnet_testseams
// tag, which the end-to-end and scale suites build so that their exporter collects every few
// seconds; a release build does not read it, and users get budget.Floor.
const serveFloorEnv = "KARPNET_SERVE_TEST_MIN_INTERVAL"

const serveExample = `  # Export metrics on 127.0.0.1:9464, collecting every 5 minutes
  %[1]s serve

  # In a pod: every interface, and /report (the whole report) for whoever reaches the port;
  # --report-token-file FILE serves it only to requests bearing the token in FILE
  %[1]s serve --listen :9464 --report

  # One NodePool, every 2 minutes, with the per-node series
  %[1]s serve --nodepool general --interval 2m --node-metrics

  # Serve a saved snapshot (no cluster or AWS access), e.g. to try the dashboards; it is read
  # once, and /readyz fails once it is older than --max-age
  %[1]s serve --snapshot cluster.json.gz --listen 127.0.0.1:9464 --max-age 720h`

// serveOptions are the flags of `serve`: check's selection and check filters, and the server's.
type serveOptions struct {
	check    *checkOptions
	listen   string
	interval time.Duration
	maxAge   time.Duration
	// timeout is --collection-timeout: the whole-collection deadline; zero means --interval.
	timeout time.Duration
	perNode bool
	// oldPerNode is the deprecated --per-node-metrics: --node-metrics, with a note.
	oldPerNode bool
	reload     bool
	// report is --report: /report for anyone who reaches the port; tokenFile is
	// --report-token-file: /report only with its bearer token.
	report    bool
	tokenFile string
}

func newCmdServe(common *commonOptions) *cobra.Command {
	o := &serveOptions{check: &checkOptions{commonOptions: common, output: "json", failOn: "never"},
		listen: "127.0.0.1:9464", interval: 5 * time.Minute}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Export the findings, subnet addresses and node pod capacity as Prometheus metrics, collecting on an interval",
		Long: `serve runs until stopped: it collects as check does every --interval (at least 15s, to
stay inside EC2's request budget; 5m by default) and serves the latest good collection:

  /metrics  Prometheus metrics (karpnet_findings, karpnet_subnet_free_addresses, ...)
  /report   the report, as check -o json prints it: off unless --report is given, or
            --report-token-file FILE, which requires "Authorization: Bearer TOKEN"
  /healthz  200 while the process runs
  /readyz   200 while the data is younger than --max-age (from the snapshot's taken time),
            503 before the first collection succeeds and once the data is older

A --snapshot file is read once (--reload reads it again every interval). Per-node series
are off unless --node-metrics is given (about 3 series per node).
A collection that fails keeps the last good data, with karpnet_data_stale 1. A collection is
cut off after --collection-timeout (default --interval, at least 15s) and fails; /readyz answers 503 after
one that was cut off, and while one runs past its deadline without returning. One line per
collection goes to standard error. SIGTERM or Ctrl-C stops it with exit code 0; it exits 2 on
bad flags and 3 when it cannot start (kubeconfig unreadable, --listen address taken).`,
		Example: fmt.Sprintf(serveExample, "kubectl karpnet"),
		Args:    cobra.NoArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return o.run(c.Context()) },
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", o.listen, "address to serve /metrics, /report, /healthz and /readyz on (host:port; :9464 for every interface, as in a pod)")
	f.BoolVar(&o.report, "report", o.report, "serve /report, the whole report, to anyone who reaches --listen (off by default)")
	f.StringVar(&o.tokenFile, "report-token-file", o.tokenFile, "serve /report only to requests bearing the token in this file (Authorization: Bearer TOKEN)")
	f.DurationVar(&o.interval, "interval", o.interval, "time between collections (at least 15s, to stay inside EC2's request budget)")
	f.DurationVar(&o.maxAge, "max-age", o.maxAge, "/readyz fails once the data is older than this, from the snapshot's taken time (default 3 x --interval)")
	f.DurationVar(&o.timeout, "collection-timeout", o.timeout, "cut a collection off after this long; it fails and the last good data is served as stale (default --interval, at least 15s)")
	f.BoolVar(&o.perNode, "node-metrics", o.perNode, "also export the per-node series karpnet_node_info, _max_pods, _pod_ip_capacity and _findings (about 3 series per node)")
	f.BoolVar(&o.oldPerNode, "per-node-metrics", o.oldPerNode, "deprecated: --node-metrics")
	_ = f.MarkHidden("per-node-metrics")
	f.BoolVar(&o.reload, "reload", o.reload, "with --snapshot: read the file again every --interval (else it is read once)")
	f.StringVarP(&o.check.selector, "selector", "l", o.check.selector, "label selector over nodes (e.g. -l karpenter.sh/capacity-type=spot)")
	f.StringVar(&o.check.nodePool, "nodepool", o.check.nodePool, "only nodes of this Karpenter NodePool")
	f.StringVar(&o.check.nodeClass, "nodeclass", o.check.nodeClass, "only nodes of this EC2NodeClass (or EKS Auto Mode NodeClass)")
	f.StringSliceVar(&o.check.only, "only", o.check.only, "run only these check IDs (comma-separated)")
	f.StringSliceVar(&o.check.skip, "skip", o.check.skip, "skip these check IDs (comma-separated)")
	registerFlagCompletion(cmd, "nodepool", o.check.completeNodePools)
	registerFlagCompletion(cmd, "nodeclass", o.check.completeNodeClasses)
	registerFlagCompletion(cmd, "only", checkIDCompletion(&o.check.only))
	registerFlagCompletion(cmd, "skip", checkIDCompletion(&o.check.skip))
	registerFlagCompletion(cmd, "selector", cobra.NoFileCompletions)
	registerFlagCompletion(cmd, "listen", cobra.NoFileCompletions)
	registerFlagCompletion(cmd, "interval", cobra.NoFileCompletions)
	return cmd
}

// every returns the interval to collect on; one below the floor is a usage error naming it.
func (o *serveOptions) every() (time.Duration, error) {
	floor := budget.Floor
	if o.check.serveFloor > 0 {
		floor = o.check.serveFloor
	}
	if d, err := testSeamFloor(o.check.getenv); err != nil {
		return 0, err
	} else if d > 0 {
		floor = d
	}
	if o.interval <= 0 {
		return 0, usageErrorf("--interval %s: give a positive interval such as 5m (at least %s)", o.interval, floor)
	}
	if every, raised := budget.Interval(o.interval, floor); raised {
		return 0, usageErrorf("--interval %s is below the minimum of %s: collections share EC2's request budget with Karpenter; give --interval %s or more",
			o.interval, every, every)
	}
	return o.interval, nil
}

// maxAgeFor returns serve's MaxAge: --max-age, else three intervals; no limit for the demo,
// whose snapshot is a fixture, unless --max-age is given.
func (o *serveOptions) maxAgeFor(every time.Duration) (time.Duration, error) {
	switch {
	case o.maxAge < 0:
		return 0, usageErrorf("--max-age %s: give a positive duration such as 15m, or leave it out for 3 x --interval", o.maxAge)
	case o.maxAge > 0:
		return o.maxAge, nil
	case o.check.demo:
		return -1, nil
	}
	return serve.DefaultMaxAge(every), nil
}

// run checks the flags, starts listening, and serves until ctx ends.
func (o *serveOptions) run(ctx context.Context) error {
	if o.check.multi() {
		return usageErrorf("serve exports one cluster: drop --contexts and --all-contexts, and run one serve per cluster (--context NAME)")
	}
	if err := o.check.complete(nil); err != nil {
		return err
	}
	every, err := o.every()
	if err != nil {
		return err
	}
	maxAge, err := o.maxAgeFor(every)
	if err != nil {
		return err
	}
	if o.timeout < 0 {
		return usageErrorf("--collection-timeout %s: give a positive duration such as 2m, or leave it out for --interval", o.timeout)
	}
	if o.reload && o.check.snapshotFile == "" {
		return usageErrorf("--reload re-reads a --snapshot file: give --snapshot FILE, or drop --reload (a live cluster is read every --interval)")
	}
	if o.oldPerNode {
		o.perNode = true
		fmt.Fprintf(o.check.ErrOut, "%s --per-node-metrics is deprecated: use --node-metrics (it also exports karpnet_node_info, _max_pods and _pod_ip_capacity)\n",
			time.Now().UTC().Format(time.RFC3339))
	}
	_, port, err := net.SplitHostPort(o.listen)
	if err != nil {
		return usageErrorf("--listen %q: %v: give host:port or :port, e.g. :9464", o.listen, err)
	}
	// A port is 0 (any free one, stated) to 65535; an empty one would bind a random port unasked.
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return usageErrorf("--listen %q: the port must be a number from 0 to 65535, e.g. :9464", o.listen)
	}
	access, err := o.reportAccess()
	if err != nil {
		return err
	}
	log := o.check.ErrOut
	requests := serve.NewRequests()
	collectReport, err := o.collector(ctx, requests)
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", o.listen)
	if err != nil {
		return collectError(fmt.Errorf("cannot listen on %s: %w: choose another --listen address", o.listen, err))
	}
	fmt.Fprintf(log, "%s serving http://%s (/metrics, /healthz, /readyz; /report %s), collecting every %s\n",
		time.Now().UTC().Format(time.RFC3339), ln.Addr(), reportState(access), every)
	srv := serve.New(serve.Options{Collect: collectReport, Interval: every, MaxAge: maxAge, Timeout: o.timeout, Requests: requests,
		NodeMetrics: o.perNode, Report: access, Log: log, Version: version.Get().Version,
		// Between collections serve holds only what it serves: the memory a collection took
		// is given back rather than kept for the next (10 collections of 10,000 nodes: see
		// docs/scale.md).
		Release: debug.FreeOSMemory})
	if err := srv.Run(ctx, ln); err != nil {
		return collectError(err)
	}
	fmt.Fprintf(log, "%s stopped\n", time.Now().UTC().Format(time.RFC3339))
	return nil
}

// maxTokenBytes bounds --report-token-file: a token, not a document.
const maxTokenBytes = 4096

// reportAccess returns who may read /report: nobody by default, anyone with --report, the
// bearers of --report-token-file's token with it. A token file that cannot be read ends serve at
// start with exit code 3; an empty one is a usage error.
func (o *serveOptions) reportAccess() (serve.ReportAccess, error) {
	access := serve.ReportAccess{Open: o.report}
	if o.tokenFile == "" {
		return access, nil
	}
	f, err := os.Open(o.tokenFile)
	if err != nil {
		return access, collectError(fmt.Errorf("reading --report-token-file: %w: give a readable file holding the token", err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenBytes+1))
	if err != nil {
		return access, collectError(fmt.Errorf("reading --report-token-file %s: %w: give a readable file holding the token", o.tokenFile, err))
	}
	token := strings.TrimSpace(string(b))
	switch {
	case len(b) > maxTokenBytes:
		return access, usageErrorf("--report-token-file %s is longer than %d bytes: give a file holding the token alone", o.tokenFile, maxTokenBytes)
	case token == "":
		return access, usageErrorf("--report-token-file %s is empty: write a token into it (e.g. openssl rand -hex 32), or give --report to serve /report without one", o.tokenFile)
	}
	access.Token = token
	return access, nil
}

// reportState says how /report is served, for the start line.
func reportState(a serve.ReportAccess) string {
	switch {
	case a.Token != "":
		return "with the bearer token of --report-token-file"
	case a.Open:
		return "open (--report)"
	}
	return "off"
}

// collector returns one collection as check runs it: load (live, --snapshot or the demo),
// then the selection's options, then Analyze, and the free /28 blocks of the subnets whose
// block map is known. The live collector is built once, its requests counted, and reused by
// every collection: a kubeconfig that cannot be read ends serve at start with exit code 3. A
// --snapshot file (and the demo) is read and analysed once, unless --reload is given.
func (o *serveOptions) collector(ctx context.Context, requests *serve.Requests) (serve.CollectFunc, error) {
	c := o.check
	if !c.demo && c.snapshotFile == "" {
		wrap := c.configFlags.WrapConfigFn
		c.configFlags.WrapConfigFn = func(cfg *rest.Config) *rest.Config {
			if wrap != nil {
				cfg = wrap(cfg)
			}
			cfg = rest.CopyConfig(cfg)
			cfg.Wrap(requests.WrapTransport)
			return cfg
		}
		live, err := c.newCollector(ctx, c.commonOptions)
		var usage *exitError
		if errors.As(err, &usage) && usage.code == ExitUsage {
			return nil, err // an unknown --context, as for check
		}
		if err != nil {
			return nil, collectError(err)
		}
		live.EC2 = requests.WrapEC2(live.EC2)
		c.newCollector = func(context.Context, *commonOptions) (*collect.Collector, error) { return live, nil }
	}
	notes := ""
	static := (c.demo || c.snapshotFile != "") && !o.reload
	var once *serve.Collection
	return func(ctx context.Context) (serve.Collection, error) {
		if once != nil {
			return *once, nil
		}
		snap, err := c.load(ctx, c.sel.scope())
		if err != nil {
			return serve.Collection{}, err
		}
		if n := strings.Join(snap.Notes, "\n"); n != notes {
			notes = n
			c.printNotes(snap)
		}
		opts, err := c.sel.options(snap, c.only, c.skip)
		if err != nil {
			return serve.Collection{}, err
		}
		got := serve.NewCollection(snap, diagnose.Analyze(snap, opts))
		if static {
			once = &got
		}
		return got, nil
	}, nil
}
