// Package hostile is a Kubernetes API server for tests that misbehaves on demand. It serves
// what karpnet's collection reads (node list and get, the custom resource lists and gets,
// events, the aws-node DaemonSet) from objects given as unstructured values, as JSON, with
// limit/continue paging, label and field selectors, and the watch cache's one-page answer to
// resourceVersion=0. Faults chosen per path prefix replace or bend those answers: continue
// tokens that cycle or never end, raw bodies (an HTML login page with 200, a proxy's 500),
// Status errors such as 403 Forbidden and 500 InternalError, and slow answers.
//
// Its EC2 counterpart is internal/testkit/ec2sim, whose hostile faults (cycling and endless
// NextTokens, raw bodies, instances nobody asked for, slow actions) live in that package.
package hostile
