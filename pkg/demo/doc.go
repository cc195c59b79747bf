// Package demo embeds the snapshot of a made-up but realistic EKS cluster, so that
// `kubectl karpnet demo` can show what karpnet finds without a cluster or AWS credentials.
//
// The snapshot is generated from Go code by hack/gendemo: run `go generate ./pkg/demo` after
// changing the generator. A test regenerates it in memory and fails when the two drift.
package demo
