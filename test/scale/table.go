package scale

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable writes one row per result: check's requests against their budgets, wall time
// and peak RSS, then describe node's, then the baseline's and the speed-up.
func WriteTable(w io.Writer, c Conditions, results []Result) error {
	fmt.Fprintf(w, "EC2: %s latency per request, throttle %s\n\n", c.Latency, throttleText(c.Throttle))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tcheck EC2 (budget)\tcheck K8s (budget)\tcheck wall\tcheck RSS\tthrottled\t"+
		"describe EC2/K8s\tdescribe wall\tbaseline EC2/K8s\tbaseline wall\tbaseline RSS\tspeed-up\t")
	for _, r := range results {
		base := "-\t-\t-\t-"
		if b := r.Baseline; b != nil {
			base = fmt.Sprintf("%d/%d\t%s\t%s\t%.0fx", b.EC2Total(), b.KubeTotal(), seconds(b.Wall), mib(b.PeakRSS), r.Speedup())
		}
		fmt.Fprintf(tw, "%d\t%d (%d)\t%d (%d)\t%s\t%s\t%d\t%d/%d\t%s\t%s\t\n", r.Nodes,
			r.Check.EC2Total(), EC2Budget(r.Nodes), r.Check.KubeTotal(), KubeBudget(r.Nodes),
			seconds(r.Check.Wall), mib(r.Check.PeakRSS), r.Check.Throttled,
			r.Describe.EC2Total(), r.Describe.KubeTotal(), seconds(r.Describe.Wall), base)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeServeTable(w, results); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, r := range results {
		fmt.Fprintf(w, "%d nodes: check EC2 %s; Kubernetes %s; findings %s; gaps %d; seeded in %s; etcd %s (peak %s), kube-apiserver %s (peak %s)\n", r.Nodes,
			counts(r.Check.EC2), counts(r.Check.Kube), counts(r.Findings), r.Gaps, seconds(r.Seed),
			mib(r.Etcd.RSS), mib(r.Etcd.Peak), mib(r.APIServer.RSS), mib(r.APIServer.Peak))
		fmt.Fprintf(w, "%d nodes: describe node EC2 %s; Kubernetes %s\n", r.Nodes, counts(r.Describe.EC2), counts(r.Describe.Kube))
		if b := r.Baseline; b != nil {
			fmt.Fprintf(w, "%d nodes: baseline EC2 %s; Kubernetes %s; RequestLimitExceeded %d\n", r.Nodes,
				counts(b.EC2), counts(b.Kube), b.Throttled)
		}
	}
	return nil
}

func throttleText(on bool) string {
	if on {
		return fmt.Sprintf("on (%d burst, %d/s)", ThrottleBurst, ThrottleRefill)
	}
	return "off"
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// counts formats a count map as "a=1 b=2", keys sorted.
func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// writeServeTable writes one row per result that measured serve: requests per collection
// against check's, the mean collection time, and memory after the first, third and last
// collection.
func writeServeTable(w io.Writer, results []Result) error {
	var rows []Result
	for _, r := range results {
		if r.Serve != nil && r.Serve.Collections() > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tserve collections\tEC2/collection (check)\tK8s/collection (check)\tcollection wall\t"+
		"RSS 1st\tRSS 3rd\tRSS last\tlive heap 3rd/last\tpeak RSS\texit\t")
	for _, r := range rows {
		s := r.Serve
		last := len(s.RSS) - 1
		third := min(2, last)
		fmt.Fprintf(tw, "%d\t%d\t%s (%d)\t%s (%d)\t%s\t%s\t%s\t%s\t%s/%s\t%s\t%d\t\n", r.Nodes, s.Collections(),
			perCollection(s.EC2), r.Check.EC2Total(), perCollection(s.Kube), r.Check.KubeTotal(), seconds(s.MeanWall),
			mib(s.RSS[0]), mib(s.RSS[third]), mib(s.RSS[last]), mib(s.HeapLive[third]), mib(s.HeapLive[last]), mib(s.PeakRSS), s.Exit)
	}
	return tw.Flush()
}

// perCollection formats the request totals of each collection: "39" when they are all the
// same, else "min-max".
func perCollection(each []map[string]int) string {
	lo, hi := -1, -1
	for _, m := range each {
		n := sum(m)
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}
