// Package wayout holds the way-out model: how the nodes of a subnet reach what they need to
// join an EKS cluster. From a snapshot's route tables, NAT gateways, VPC endpoints and network
// ACLs it decides a subnet's WayOut (its effective route table, each default route classified
// and, for a NAT gateway, followed to its own route table and its subnet's network ACL; the VPC
// endpoints that stand in for a missing route; whether the subnet's network ACL lets the HTTPS
// traffic and its replies through), and the Changes that would repair what is missing.
//
// It reads only pkg/snapshot. pkg/diagnose builds one Net per analysis and its join checks
// (subnet-no-egress-route, the network ACL check, the NodeClaim registration check) read it,
// turning Changes into a finding's commands with the nodes each change reaches; `describe node`,
// the NodeClaim sheet and the subnet sheet carry the WayOut, which pkg/printer renders.
package wayout
