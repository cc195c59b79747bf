// Package e2e runs karpnet end to end against real components started on 127.0.0.1: etcd and
// kube-apiserver for Kubernetes, moto (extended by test/e2e/moto) for EC2, and the built
// kubectl-karpnet binary run through the real kubectl. TestMain starts everything once; each
// scenario resets both sides, builds its EC2 state through the AWS SDK and its Kubernetes
// objects through client-go, then runs `kubectl karpnet ...` and checks its output and exit code.
//
// A component that cannot start fails the suite with the reason; nothing is skipped.
package e2e
