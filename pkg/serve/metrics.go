package serve

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// durationBuckets are karpnet_collection_duration_seconds' buckets: a collection takes about
// 0.4 s at 500 nodes and 6 s at 10,000 (see docs/scale.md), longer with EC2
// latency or throttling.
var durationBuckets = []float64{0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300}

// Metric descriptions. Every name starts with karpnet_; docs/serve.md lists them
// with their labels and cardinality.
var (
	descBuildInfo = prometheus.NewDesc("karpnet_build_info",
		"The karpnet build serving these metrics; always 1.", []string{"version"}, nil)
	descFindings = prometheus.NewDesc("karpnet_findings",
		"Findings of the latest good collection by check ID and severity.",
		[]string{"check", "severity"}, nil)
	descPoolFindings = prometheus.NewDesc("karpnet_nodepool_findings",
		"Findings of the latest good collection that concern one NodePool, by check ID, severity and NodePool.",
		[]string{"check", "severity", "nodepool"}, nil)
	descClassFindings = prometheus.NewDesc("karpnet_nodeclass_findings",
		"Findings of the latest good collection that concern one NodeClass, by check ID, severity and NodeClass.",
		[]string{"check", "severity", "nodeclass"}, nil)
	descSubnetFindings = prometheus.NewDesc("karpnet_subnet_findings",
		"Findings of the latest good collection that concern one subnet, by check ID, severity and subnet ID.",
		[]string{"check", "severity", "subnet"}, nil)
	descNodeFindings = prometheus.NewDesc("karpnet_node_findings",
		"Findings of the latest good collection by node, check ID and severity (only with --node-metrics).",
		[]string{"node", "check", "severity"}, nil)
	descNodes = prometheus.NewDesc("karpnet_nodes",
		"Nodes checked by status: ok, info, warning, critical (the worst finding), initialising, terminating, skipped (not EC2).",
		[]string{"status"}, nil)
	descNodeInfo = prometheus.NewDesc("karpnet_node_info",
		"One series per Karpenter node on EC2 (only with --node-metrics), always 1, carrying its NodePool, NodeClass, instance type and zone for joins.",
		[]string{"node", "nodepool", "nodeclass", "instance_type", "zone"}, nil)
	descNodeMaxPods = prometheus.NewDesc("karpnet_node_max_pods",
		"The pods the node advertises (status.capacity.pods; only with --node-metrics).", []string{"node"}, nil)
	descNodePodIPs = prometheus.NewDesc("karpnet_node_pod_ip_capacity",
		"The most pod IPs the node's ENIs can give (the formula of kubectl karpnet max-pods; only with --node-metrics).", []string{"node"}, nil)
	descSubnetFree = prometheus.NewDesc("karpnet_subnet_free_addresses",
		"Free IPv4 addresses of a subnet the nodes, NodeClasses or ENIConfigs use (EC2's AvailableIpAddressCount).",
		[]string{"subnet_id", "zone"}, nil)
	descSubnetSize = prometheus.NewDesc("karpnet_subnet_addresses",
		"Usable IPv4 addresses of the subnet: its CIDR's size less the five AWS reserves.",
		[]string{"subnet_id", "zone"}, nil)
	descSubnetFreeBlocks = prometheus.NewDesc("karpnet_subnet_free_prefix_blocks",
		"Free /28 blocks of a subnet prefixes are carved from (no address held): the prefixes it can still give.",
		[]string{"subnet_id", "zone"}, nil)
	descGaps = prometheus.NewDesc("karpnet_gaps",
		"Sources the latest good collection could not read (each a data-unavailable finding), by source (\"ec2 in REGION\" for one Region's EC2).",
		[]string{"source"}, nil)
	descNotRun = prometheus.NewDesc("karpnet_check_not_run",
		"Checks the latest good collection did not run because a source each needs could not be read (check's notRun), always 1, by check and by source it needs (as karpnet_gaps names it).",
		[]string{"check", "source"}, nil)
	descStale = prometheus.NewDesc("karpnet_data_stale",
		"1 when the data served is not the latest attempt's: no collection has succeeded yet, the last one failed, or the one under way has run past its deadline (--collection-timeout) plus 5 s; else 0.",
		nil, nil)
	descLastSuccess = prometheus.NewDesc("karpnet_last_success_timestamp_seconds",
		"When the latest good collection started, in seconds since the epoch; absent until one succeeds.", nil, nil)
	descSnapshotTime = prometheus.NewDesc("karpnet_snapshot_timestamp_seconds",
		"When the data served was read (the snapshot's taken time; a --snapshot file's is when it was saved), in seconds since the epoch; absent until a collection succeeds.",
		nil, nil)
	descMaxAge = prometheus.NewDesc("karpnet_max_age_seconds",
		"--max-age: /readyz fails once the data served is older than this, measured from karpnet_snapshot_timestamp_seconds; absent without a limit.",
		nil, nil)
	descInterval = prometheus.NewDesc("karpnet_collection_interval_seconds",
		"The time between the end of one collection and the start of the next.", nil, nil)
	descCollections = prometheus.NewDesc("karpnet_collections_total",
		"Collections run, by result: success or failure.", []string{"result"}, nil)
	descEC2Requests = prometheus.NewDesc("karpnet_ec2_requests_total",
		"EC2 requests the collections made, by action; each retry counts.", []string{"action"}, nil)
	descKubeRequests = prometheus.NewDesc("karpnet_kubernetes_requests_total",
		"Kubernetes API requests the collections made, by verb and resource.", []string{"verb", "resource"}, nil)
)

// newRegistry returns the registry of what changes between collections: the Go and process
// collectors, the collection duration histogram and the server's own metrics. The families of
// the collection's figures are rendered once per collection instead (view.exposition).
func newRegistry(s *Server) (*prometheus.Registry, prometheus.Histogram) {
	reg := prometheus.NewRegistry()
	duration := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "karpnet_collection_duration_seconds",
		Help:    "How long collections took, failed ones included.",
		Buckets: durationBuckets,
	})
	// The Go collector's defaults, and the live heap after the last GC (go_gc_heap_live_bytes):
	// what the latest report holds, which must not grow from one collection to the next.
	goCollector := collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(
		collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$`)}))
	reg.MustRegister(goCollector, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), duration, (*metrics)(s))
	return reg, duration
}

// metrics is the Server seen as a prometheus.Collector of what changes between collections:
// the build, the settings, the collections and requests counted, staleness and the data's
// times.
type metrics Server

// Describe sends every description the collector can emit.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descBuildInfo, descStale, descLastSuccess, descSnapshotTime, descMaxAge,
		descInterval, descCollections, descEC2Requests, descKubeRequests} {
		ch <- d
	}
}

// emitter returns the function that sends one series to ch, its label values made valid and
// bounded; a series with an empty label value is left out.
func emitter(ch chan<- prometheus.Metric) func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	return func(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
		for i, l := range labels {
			if l == "" {
				return // a label that does not apply is omitted with its series, never emitted empty
			}
			labels[i] = labelValue(l)
		}
		if m, err := prometheus.NewConstMetric(d, t, v, labels...); err == nil {
			ch <- m
		}
	}
}

// Collect sends the current values.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	s := (*Server)(m)
	s.mu.RLock()
	st := s.st
	s.mu.RUnlock()
	emit := emitter(ch)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) { emit(d, prometheus.GaugeValue, v, labels...) }
	counter := func(d *prometheus.Desc, v float64, labels ...string) { emit(d, prometheus.CounterValue, v, labels...) }
	gauge(descBuildInfo, 1, cmp.Or(s.opts.Version, "dev"))
	gauge(descInterval, s.opts.Interval.Seconds())
	if s.opts.MaxAge > 0 {
		gauge(descMaxAge, s.opts.MaxAge.Seconds())
	}
	counter(descCollections, float64(st.successes), "success")
	counter(descCollections, float64(st.failures), "failure")
	stale := 0.0
	if s.stale(&st, s.opts.Now()) {
		stale = 1
	}
	gauge(descStale, stale)
	if r := s.opts.Requests; r != nil {
		for action, n := range r.EC2() {
			counter(descEC2Requests, float64(n), action)
		}
		for key, n := range r.Kube() {
			verb, resource, _ := strings.Cut(key, " ")
			counter(descKubeRequests, float64(n), verb, resource)
		}
	}
	if st.view == nil {
		return
	}
	gauge(descLastSuccess, float64(st.lastSuccess.UnixNano())/1e9)
	gauge(descSnapshotTime, float64(st.taken().UnixNano())/1e9)
}

// figureMetrics is a collection's figures seen as a prometheus.Collector: they only change
// when a collection succeeds, so they are gathered once, when it ends, into the view's
// exposition; series of a finding that is gone end with the collection that saw it gone.
type figureMetrics struct{ f *figures }

// Describe sends every description the collector can emit.
func (m figureMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descFindings, descPoolFindings, descClassFindings, descSubnetFindings,
		descNodeFindings, descNodes, descNodeInfo, descNodeMaxPods, descNodePodIPs, descSubnetFree, descSubnetSize,
		descSubnetFreeBlocks, descGaps, descNotRun} {
		ch <- d
	}
}

// Collect sends the figures.
func (m figureMetrics) Collect(ch chan<- prometheus.Metric) {
	v := m.f
	emit := emitter(ch)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) { emit(d, prometheus.GaugeValue, v, labels...) }
	for k, n := range v.findings {
		gauge(descFindings, float64(n), k.check, k.severity)
	}
	for d, counts := range map[*prometheus.Desc]map[subjectFindingKey]int{
		descPoolFindings: v.poolFindings, descClassFindings: v.classFindings, descSubnetFindings: v.subnetFindings,
	} {
		for k, n := range counts {
			gauge(d, float64(n), k.check, k.severity, k.name)
		}
	}
	for k, n := range v.nodeFindings {
		gauge(descNodeFindings, float64(n), k.node, k.check, k.severity)
	}
	for status, n := range v.statuses {
		gauge(descNodes, float64(n), status)
	}
	for _, n := range v.nodes {
		// Nodes are unique by name within a report; v.nodes keeps the first of any repeat. A
		// node without a NodePool, class, type or zone (not Karpenter's, not EC2) has no info
		// series rather than empty labels.
		if n.nodePool != "" && n.nodeClass != "" && n.instanceType != "" && n.zone != "" {
			gauge(descNodeInfo, 1, n.name, n.nodePool, n.nodeClass, n.instanceType, n.zone)
		}
		if n.capacity {
			gauge(descNodeMaxPods, float64(n.maxPods), n.name)
			gauge(descNodePodIPs, float64(n.podIPs), n.name)
		}
	}
	for k, sn := range v.subnets {
		gauge(descSubnetFree, float64(sn.free), k.id, k.zone)
		gauge(descSubnetSize, float64(sn.size), k.id, k.zone)
		if sn.blocksKnown {
			gauge(descSubnetFreeBlocks, float64(sn.freeBlocks), k.id, k.zone)
		}
	}
	for source, n := range v.gaps {
		gauge(descGaps, float64(n), source)
	}
	for k := range v.notRun {
		gauge(descNotRun, 1, k.check, k.source)
	}
}

// renderings counts the expositions of figures rendered since the process started: one per
// successful collection.
var renderings atomic.Int64

// render returns f's families in the Prometheus text format, as /metrics serves them.
func (f *figures) render() []byte {
	renderings.Add(1)
	reg := prometheus.NewRegistry()
	reg.MustRegister(figureMetrics{f})
	families, _ := reg.Gather() // the figures' own series cannot clash; any error leaves what was gathered
	var b bytes.Buffer
	for _, mf := range families {
		_, _ = expfmt.MetricFamilyToText(&b, mf) // a bytes.Buffer does not fail
	}
	return bytes.Clone(b.Bytes())
}

// maxLabelBytes bounds a label value: names read from a cluster or a snapshot are data.
const maxLabelBytes = 256

// labelHashLen is the length of the suffix that keeps truncated label values distinct: "~" and
// eight hex digits of the whole value's SHA-256.
const labelHashLen = 9

// labelValue returns s as a label value: valid UTF-8, at most maxLabelBytes. A longer value
// keeps its head, cut at a character boundary, and ends in "~" and eight hex digits of the
// whole value's SHA-256, so that values sharing their first bytes stay distinct series.
func labelValue(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxLabelBytes {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	head := s[:maxLabelBytes-labelHashLen]
	for !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	return head + "~" + hex.EncodeToString(sum[:4])
}
