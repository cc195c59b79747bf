// Package testkit holds, below it, the packages that only tests, benchmarks and the hack tools
// import: the EC2 simulator (ec2sim), a misbehaving Kubernetes API server (hostile), the hostile
// strings the fuzzers share (hostiletext), the golden-file and kubectl List helpers (testutil),
// snapshot builders (fixture), the remedy-command verifier (cmdverify), the CI formats' schemas
// (cischema) and their xmllint installer (aptinstall), and the VPC CNI's eni-max-pods.txt
// (enimaxpods) that pkg/maxpods is compared with. The plugin links none of them; hack/lint.sh
// fails when cmd/kubectl-karpnet's dependencies reach into this directory.
package testkit
