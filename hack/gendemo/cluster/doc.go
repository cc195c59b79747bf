// Package cluster builds the demo snapshot: a made-up EKS cluster "demo" in us-west-2 with
// Karpenter, VPC CNI custom networking and prefix delegation, an EFA training pool in a
// cluster placement group, a managed node group and a hybrid node, plus a few deliberate
// faults for karpnet to find.
//
// Everything is derived from fixed names through hashes, so the output is the same on every
// run and adding one node does not change the IDs or addresses of the others. Per-type network
// figures are the real EC2 ones.
package cluster
