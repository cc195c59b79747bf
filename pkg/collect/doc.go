// Package collect does all of karpnet's I/O: it reads Kubernetes (typed and dynamic clients)
// and EC2 (Describe* calls only) into a snapshot.Snapshot.
//
// Collection is read-only by construction and batched: the number of EC2 requests does not grow
// per node. A source that cannot be read becomes a snapshot.Gap; only an API server that cannot
// be reached or refuses our credentials ends a collection with an error.
package collect
