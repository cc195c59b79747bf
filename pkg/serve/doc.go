// Package serve is karpnet's Prometheus exporter: a loop that collects the cluster as check
// does, analyses it, and keeps the latest good report, and an HTTP server that shows it as
// metrics (/metrics), as the report check -o json prints (/report), and as health and
// readiness (/healthz, /readyz).
//
// Only the latest report is held: each collection replaces the previous one, and metrics are
// built from it at scrape time, so a finding that is fixed leaves /metrics at the next
// collection and memory does not grow with the number of collections. A collection that fails
// keeps the last good report, and karpnet_data_stale says so.
package serve
