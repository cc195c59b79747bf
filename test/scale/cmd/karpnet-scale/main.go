// Command karpnet-scale measures kubectl-karpnet on synthetic clusters: for each size it grows
// a cluster in a real kube-apiserver and an EC2 server with added latency and EC2's
// throttling, runs `check` and `describe node` with the real binary and, unless -baseline=false,
// a per-node baseline (one DescribeInstances per node) and ten collections of `serve`, and
// prints requests, wall time, peak RSS, the speed-up and serve's memory after each collection.
//
//	go run ./test/scale/cmd/karpnet-scale -sizes 500,2000,5000,10000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/test/scale"
	"github.com/karpnet/kubectl-karpnet/test/scale/results"
)

func main() {
	sizes := flag.String("sizes", "500,2000,5000,10000", "comma-separated cluster sizes, in nodes")
	latency := flag.Duration("latency", 50*time.Millisecond, "latency added to every EC2 request")
	throttle := flag.Bool("throttle", true, "throttle EC2 with its token bucket (100 burst, 20/s)")
	named := flag.Bool("cluster-name", false, "pass --cluster-name to check, as a kubeconfig from `aws eks update-kubeconfig` names the cluster")
	runs := flag.Int("runs", 3, "check runs per size; the median wall time is reported")
	baseline := flag.Bool("baseline", true, "also run the per-node baseline (about N x latency seconds)")
	exporter := flag.Int("serve-collections", 10, "collections of `kubectl-karpnet serve` to measure per size, memory after each (0: none)")
	serve := flag.Bool("serve", false, "after measuring, keep the largest cluster up and print the environment that reaches it, until interrupted")
	dir := flag.String("dir", "", "working directory (default: a new temporary directory, removed at exit)")
	resultsFile := flag.String("results", "", "also put each size's figures into this results file (test/scale/results.json renders docs/scale.md)")
	flag.Parse()
	if err := run(*sizes, *dir, *resultsFile, *serve, scale.Options{
		Conditions: scale.Conditions{Latency: *latency, Throttle: *throttle, NamedCluster: *named}, Runs: *runs, Baseline: *baseline,
		ServeCollections: *exporter,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "karpnet-scale:", err)
		os.Exit(1)
	}
}

func run(sizes, dir, resultsFile string, serve bool, o scale.Options) error {
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-sizes: %q is not a node count: give positive numbers such as 500,2000", s)
		}
		o.Sizes = append(o.Sizes, n)
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "karpnet-scale-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	env, err := scale.Start(ctx, dir, os.Stderr)
	if err != nil {
		return err
	}
	defer env.Close()
	commit := results.Commit() // the binary Measure builds is the working tree's now
	measured, err := env.Measure(ctx, o, nil)
	if len(measured) > 0 {
		if werr := scale.WriteTable(os.Stdout, o.Conditions, measured); werr != nil {
			return werr
		}
		if resultsFile != "" {
			if werr := results.Update(resultsFile, rows(measured, o, commit)...); werr != nil {
				return werr
			}
		}
	}
	if err != nil || !serve {
		return err
	}
	env.EC2.SetLatency(o.Conditions.Latency)
	if o.Conditions.Throttle {
		env.EC2.SetThrottle(scale.ThrottleBurst, scale.ThrottleRefill)
	}
	fmt.Fprintf(os.Stderr, "karpnet-scale: serving %d nodes until interrupted; run kubectl-karpnet with:\n", env.Cluster.Nodes())
	for _, kv := range env.Environ() {
		fmt.Println("export " + kv)
	}
	<-ctx.Done()
	return nil
}

// rows are the results file's rows of what was measured, by the binary built at commit.
func rows(measured []scale.Result, o scale.Options, commit string) []results.Row {
	var out []results.Row
	for _, r := range measured {
		row := results.Row{Benchmark: results.Live, Nodes: r.Nodes, ClusterName: o.Conditions.NamedCluster, Runs: o.Runs,
			EC2Requests: r.Check.EC2Total(), KubeRequests: r.Check.KubeTotal(), Throttled: r.Check.Throttled,
			WallSeconds: r.Check.Wall.Seconds(), FloorSeconds: r.Floor.Seconds(), UserCPUSeconds: r.Check.UserCPU.Seconds(),
			PeakRSSMiB: float64(r.Check.PeakRSS) / (1 << 20), DescribeEC2: r.Describe.EC2Total(), DescribeKube: r.Describe.KubeTotal()}
		if b := r.Baseline; b != nil {
			row.BaselineEC2, row.BaselineWallSeconds = b.EC2Total(), b.Wall.Seconds()
		}
		row = results.Stamp(row, time.Now())
		row.Commit = commit
		out = append(out, row)
		if s := r.Serve; s != nil && s.Collections() >= 2 {
			row := results.Row{Benchmark: results.Serve, Nodes: r.Nodes, ClusterName: o.Conditions.NamedCluster, Runs: 1,
				Collections: s.Collections(), WallSeconds: s.MeanWall.Seconds(), SecondRSSMiB: float64(s.RSS[1]) / (1 << 20),
				LastRSSMiB: float64(s.RSS[len(s.RSS)-1]) / (1 << 20), PeakRSSMiB: float64(s.PeakRSS) / (1 << 20)}
			row = results.Stamp(row, time.Now())
			row.Commit = commit
			out = append(out, row)
		}
	}
	return out
}
