// Package subnetcap holds the subnet capacity model: what the next node takes of a subnet at
// once (its launch: the primary IP, an EC2NodeClass's ipPrefixCount prefixes and its other
// interfaces; then what ipamd's warm-pool settings put on its primary ENI, or on its first pod
// ENI in another subnet), what nodes hold now, and the Pool of subnets a kind of growth draws
// from, roomiest first as Karpenter and the VPC CNI choose.
//
// It reads only pkg/snapshot and pkg/maxpods. pkg/diagnose assembles the pools from its nodes,
// classes, NodePools and ENIConfigs (core_subnetcap*.go) and judges them in the
// subnet-ip-exhaustion and subnet-prefix-fragmented checks.
package subnetcap
