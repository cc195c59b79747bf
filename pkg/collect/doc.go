// Package collect does all of karpnet's I/O: it reads Kubernetes (typed and dynamic clients)
// and EC2 (Describe* and Get* calls only) into a snapshot.Snapshot.
//
// Collection is read-only by construction and batched: the number of EC2 requests does not grow
// per node. A source that cannot be read becomes a snapshot.Gap; only an API server that cannot
// be reached or refuses our credentials ends a collection with an error.
//
// collect says what to fetch, when, and what a failure means. Reading the answers' bytes into
// typed values is the readers': internal/ec2xml (DescribeInstances XML), internal/kubestream
// (Kubernetes JSON list streams and protobuf node lists), internal/kubeobj (Karpenter and
// other objects to snapshot values) and internal/answerrec (answers read once, decoded as
// client-go would). The buffers answers are read into belong to a Collector, kept from one of
// its collections to the next; the interner that shares repeated strings belongs to one
// collection. Nothing is package state.
package collect
