// Package ec2sim is an in-process EC2 API server for tests and benchmarks. It speaks EC2's query
// protocol (form-encoded POST, Action and Version 2016-11-15, Filter.N.Name / Filter.N.Value.M,
// flat lists such as InstanceType.N, MaxResults and NextToken) well enough for the real
// aws-sdk-go-v2 EC2 client, and answers DescribeInstances, DescribeSubnets,
// DescribeSecurityGroups, DescribePlacementGroups and DescribeInstanceTypes from state declared
// as snapshot types.
//
// A Server counts requests per action and can page results, fail chosen actions with a given
// error code, add latency to every request and throttle with a token bucket, answering
// RequestLimitExceeded as EC2 does. For hostile tests it can also answer like a broken EC2 or
// something that is not EC2 at all (hostile.go): NextTokens that cycle or never end, raw
// bodies such as an HTML page with 200 or 500, instances nobody asked for, and slow actions.
// Lookups are by map, so it stays fast with tens of thousands of instances.
package ec2sim
