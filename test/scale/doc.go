// Package scale measures karpnet on synthetic clusters of thousands of nodes: a real
// kube-apiserver and etcd (the end-to-end harness) hold the Nodes, NodeClaims, NodePools and
// EC2NodeClasses, and an internal/testkit/ec2sim server answers EC2 with added latency and EC2's
// token-bucket throttling. It runs the real kubectl-karpnet binary (`check`, `describe node`)
// and, in the same run, a per-node baseline that calls DescribeInstances once per node, and
// reports per cluster size the EC2 requests by action, the Kubernetes requests, wall time and
// peak RSS of each (measured through the peakrss launcher, so that it is the process's own).
//
// The clusters grow in place: the cluster of N nodes is the first N nodes of every larger one,
// so one run measures 500, 2,000, 5,000 and 10,000 nodes seeding each node once.
//
//	go run ./test/scale/cmd/karpnet-scale -sizes 500,2000,5000,10000
package scale
