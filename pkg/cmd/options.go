package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/karpnet/kubectl-karpnet/internal/memlimit"
	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/demo"
	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// commonOptions are the flags and streams every command shares: kubectl's connection
// flags, AWS flags, snapshot files and colour.
type commonOptions struct {
	genericiooptions.IOStreams
	configFlags *kubeFlags

	region       string
	clusterName  string
	profile      string
	snapshotFile string
	saveSnapshot string
	color        string
	// snapshotMax is --snapshot-max-size as given; snapshotMaxBytes is what validate made of it.
	snapshotMax      string
	snapshotMaxBytes int64

	// contexts and allContexts are --contexts and --all-contexts; multiOK is set by the
	// commands that read several clusters (check, describe node, the TUI).
	contexts    []string
	allContexts bool
	// contextsFlag is --contexts' flag, to tell --contexts '' from no --contexts.
	contextsFlag *pflag.Flag
	multiOK      bool

	// demo makes load return the embedded demo snapshot.
	demo bool
	// newCollector builds the live collector; tests replace it to use fakes.
	newCollector func(ctx context.Context, o *commonOptions) (*collect.Collector, error)
	// newContextCollector builds the collector of one context of a run over several; tests
	// replace it to use fakes.
	newContextCollector func(ctx context.Context, o *commonOptions, name string, budget *collect.EC2Budget) (*collect.Collector, error)
	// now stamps the snapshot of a context that could not be read; tests replace it.
	now func() time.Time
	// getenv reads the environment (NO_COLOR); tests replace it.
	getenv func(string) string
	// serveFloor, when set by a test, replaces serve's interval floor (budget.Floor), so that
	// a test collects every few milliseconds; the shipped binary has no way to set it.
	serveFloor time.Duration
	// sleep waits between the collections of --watch and reports whether the wait ran out
	// (false when ctx ended); tests replace it.
	sleep func(ctx context.Context, d time.Duration) bool
	// isTerminal tells whether a stream is a terminal; tests replace it.
	isTerminal func(any) bool
	// termWidth tells the width of a terminal stream, 0 when unknown; tests replace it.
	termWidth func(any) int

	// verbose is -v: how the instances were read and what the collection cost, on standard
	// error.
	verbose int
	// machineOutput is set by commands whose output is for programs (-o json, yaml, junit,
	// sarif): no progress line then. tuiProgress is set by the terminal UI, which shows the
	// progress on its loading screen (meter) instead of standard error.
	machineOutput, tuiProgress bool
	meter                      atomic.Pointer[collect.Meter]
	// progressDelay and progressEvery pace the progress line; tests shorten them.
	progressDelay, progressEvery time.Duration
}

func newCommonOptions(streams genericiooptions.IOStreams) *commonOptions {
	return &commonOptions{
		IOStreams:           streams,
		configFlags:         newKubeFlags(),
		color:               string(style.ColorAuto),
		snapshotMax:         "1Gi",
		newCollector:        liveCollector,
		newContextCollector: liveContextCollector,
		now:                 time.Now,
		getenv:              os.Getenv,
		sleep:               sleep,
		isTerminal:          style.IsTerminal,
		termWidth:           terminalWidth,

		progressDelay: progressDelay,
		progressEvery: progressEvery,
	}
}

func (o *commonOptions) addFlags(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	o.configFlags.AddFlags(f)
	f.StringVar(&o.region, "region", o.region, "AWS Region to read EC2 in (default: AWS config, else the nodes' providerIDs)")
	f.StringVar(&o.clusterName, "cluster-name", o.clusterName, "EKS cluster name, to find the instances Karpenter launched for it (default: the nodes' cluster tags, else the kubeconfig)")
	f.StringVar(&o.profile, "profile", o.profile, "AWS shared config profile to use (default: the kubeconfig's aws eks get-token --profile, else AWS_PROFILE, else default)")
	f.StringVar(&o.snapshotFile, "snapshot", o.snapshotFile, "diagnose a saved snapshot FILE instead of a live cluster (no cluster or AWS access)")
	f.StringVar(&o.saveSnapshot, "save-snapshot", o.saveSnapshot, "write everything collected to FILE (gzip-compressed when it ends in .gz; - for standard output), replacing it whole")
	f.StringVar(&o.snapshotMax, "snapshot-max-size", o.snapshotMax, "the largest snapshot --snapshot reads, uncompressed (e.g. 512Mi, 4Gi)")
	f.StringVar(&o.color, "color", o.color, "colour text output: auto, always or never (NO_COLOR is honoured)")
	f.CountVarP(&o.verbose, "verbose", "v", "say on standard error how EC2 was read, what the collection cost (requests, paced waits) and what the AWS SDK logs (-vv: its retries too)")
	o.registerCommonCompletion(cmd)
	o.addContextFlags(cmd)
}

// validate checks the shared flags without I/O.
func (o *commonOptions) validate() error {
	if _, err := style.ParseColorMode(o.color); err != nil {
		return usageErrorf("--color: %v", err)
	}
	if o.snapshotFile != "" && o.demo {
		return usageErrorf("--snapshot cannot be used with demo: drop one of them")
	}
	if o.demo && o.configFlags.Context != "" && !slices.Contains(demo.Contexts(), o.configFlags.Context) {
		return usageErrorf("--context %q: the demo has the contexts %s", o.configFlags.Context, strings.Join(demo.Contexts(), " and "))
	}
	if err := o.validateContexts(); err != nil {
		return err
	}
	if o.snapshotFile != "" && o.saveSnapshot != "" && o.snapshotFile == o.saveSnapshot {
		return usageErrorf("--snapshot and --save-snapshot name the same file: choose another output file")
	}
	if t := o.configFlags.Timeout; validTimeout(t) != nil {
		return usageErrorf("--request-timeout %q: %v", t, validTimeout(t))
	}
	q, err := resource.ParseQuantity(o.snapshotMax)
	n, ok := q.AsInt64()
	if err != nil || !ok || n <= 0 {
		return usageErrorf("--snapshot-max-size %q is not a size: give bytes or a size such as 512Mi or 4Gi", o.snapshotMax)
	}
	o.snapshotMaxBytes = n
	return nil
}

// validTimeout checks a --request-timeout value as kubectl reads it: a whole number of seconds
// or a duration with a unit (30s, 2m), not negative; "0" or empty means no timeout.
func validTimeout(v string) error {
	if v == "" {
		return nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return errors.New("it must not be negative: give e.g. 30s or 2m, or 0 for no timeout")
		}
		return nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return errors.New("not a duration: give e.g. 30s or 2m, or 0 for no timeout")
	case d < 0:
		return errors.New("it must not be negative: give e.g. 30s or 2m, or 0 for no timeout")
	}
	return nil
}

// styles returns the text styles for out, with colour decided by --color and NO_COLOR.
func (o *commonOptions) styles() *style.Styles {
	mode, _ := style.ParseColorMode(o.color)
	st := style.New(style.Renderer(o.Out, style.Enabled(mode, o.Out, o.getenv)))
	st.Width = o.outputWidth()
	return st
}

// outputWidth is the width text output wraps its prose to: COLUMNS when it is a positive
// integer, else the terminal's width when standard output is one, else 0, the printers'
// default of 100 columns, so that what goes to a pipe or a file does not depend on the
// terminal the command ran in.
func (o *commonOptions) outputWidth() int {
	if n, err := strconv.Atoi(strings.TrimSpace(o.getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if o.isTerminal(o.Out) {
		return max(o.termWidth(o.Out), 0)
	}
	return 0
}

// load returns the snapshot to diagnose: the demo, a saved file, or a live collection of
// scope. It saves the snapshot when --save-snapshot is set.
func (o *commonOptions) load(ctx context.Context, scope collect.Scope) (*snapshot.Snapshot, error) {
	var (
		s   *snapshot.Snapshot
		err error
	)
	if o.saveSnapshot != "" {
		// Before collecting: a path that cannot be saved to is known now.
		if err := checkSavePath(o.saveSnapshot); err != nil {
			return nil, err
		}
	}
	stopFitting := memlimit.During(func() int64 { return int64(o.meter.Load().Progress().NodesExpected) })
	defer stopFitting()
	switch {
	case o.multi():
		if s, err = o.loadMulti(ctx, scope); err != nil {
			return nil, err
		}
	case o.demo:
		s, err = demo.SnapshotOf(o.configFlags.Context)
		if err != nil {
			return nil, collectError(fmt.Errorf("reading the embedded demo snapshot: %w", err))
		}
	case o.snapshotFile != "":
		s, err = readSnapshotFile(o.snapshotFile, o.snapshotMaxBytes)
		if err != nil {
			return nil, collectError(err)
		}
		if s.Multi() && !o.multiOK {
			return nil, usageErrorf("snapshot %s holds %d clusters, which %s read: run it with one of those",
				o.snapshotFile, len(s.Clusters), multiCommands)
		}
	default:
		c, err := o.newCollector(ctx, o)
		var usage *exitError
		if errors.As(err, &usage) && usage.code == ExitUsage {
			return nil, err
		}
		if err != nil {
			return nil, collectError(err)
		}
		if c.Meter == nil {
			c.Meter = &collect.Meter{}
		}
		o.meter.Store(c.Meter)
		start := time.Now()
		stop := o.startProgress(c.Meter)
		s, err = c.Collect(ctx, scope)
		stop()
		if err == nil {
			o.printVerbose(c.Meter, time.Since(start))
		}
		if ctx.Err() != nil {
			// Interrupted: what was not read would look clean, so nothing is reported.
			return nil, errInterrupted
		}
		if errors.Is(err, collect.ErrNodeNotFound) {
			return nil, &exitError{code: ExitUsage, err: err}
		}
		if err != nil {
			return nil, collectError(err)
		}
	}
	if o.saveSnapshot != "" {
		if err := o.saveSnapshotFile(s); err != nil {
			return nil, err
		}
	}
	o.fitMemory(stopFitting())
	return s, nil
}

// fitMemory gives a run that holds a large cluster a soft memory limit (internal/memlimit),
// said with -v; held is the limit kept while reading (memlimit.During), 0 for none.
func (o *commonOptions) fitMemory(held int64) {
	limit, live := memlimit.Fit(held)
	if limit > 0 && o.verbose >= 1 && !o.tuiProgress {
		fmt.Fprintf(o.ErrOut, "memory: %s live when last collected, soft limit %s (set GOMEMLIMIT to choose another)\n",
			mebibytes(live), mebibytes(limit))
	}
}

// mebibytes renders n bytes as "1,234 MiB".
func mebibytes(n int64) string { return thousands(int(n>>20)) + " MiB" }

// printNotes writes what collection wants the reader to know (e.g. that EC2 was read in the
// nodes' Region, not the AWS configuration's) to standard error, once per run. The report
// carries the same notes for JSON and YAML readers.
func (o *commonOptions) printNotes(s *snapshot.Snapshot) {
	for _, n := range s.Notes {
		fmt.Fprintf(o.ErrOut, "note: %s\n", printableLine(n))
	}
}

// printStale writes, with -v, which of the checks were verified against an older version of an
// upstream project (the VPC CNI, its network policy agent, Cilium) than the one the snapshot
// shows running: they may not know what the newer version changed.
func (o *commonOptions) printStale(s *snapshot.Snapshot, checks []diagnose.Check) {
	if o.verbose < 1 || o.tuiProgress {
		return
	}
	for _, st := range diagnose.StaleVerifications(s, checks) {
		fmt.Fprintln(o.ErrOut, printableLine(st.String()))
	}
}

// printableLine returns s as one line of standard error shows it: style.Printable, its
// newlines made spaces. Errors and notes may quote what an API server, EC2 or a snapshot said.
func printableLine(s string) string {
	return strings.ReplaceAll(style.Printable(s), "\n", " ")
}

func readSnapshotFile(name string, maxBytes int64) (*snapshot.Snapshot, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot open snapshot %s: %w", name, causeOf(err))
	}
	defer f.Close()
	if maxBytes <= 0 {
		maxBytes = snapshot.DefaultMaxBytes
	}
	s, err := snapshot.ReadLimited(f, maxBytes)
	if err != nil {
		if isReportFile(f, maxBytes) {
			return nil, fmt.Errorf("%s: %w", name, errReportNotSnapshot)
		}
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	return s, nil
}

// errReportNotSnapshot is what a report given where a snapshot is read says: saving the
// output of check -o json instead of a snapshot is the common mistake.
var errReportNotSnapshot = errors.New("this is a report (check -o json), not a snapshot: save one with --save-snapshot FILE")

// isReportFile tells whether the regular file f, which did not read as a snapshot, holds a
// karpnet report (JSON or YAML, plain or gzipped). A pipe cannot be read again: it is not.
func isReportFile(f *os.File, maxBytes int64) bool {
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	return snapshot.IsReport(f, maxBytes)
}

// causeOf drops the path from an *os.PathError, whose message would repeat the file name.
func causeOf(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
