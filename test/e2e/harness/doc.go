// Package harness starts the real components that karpnet's end-to-end tests run against, on
// 127.0.0.1: etcd with a real kube-apiserver (StartKube) and the moto EC2 emulator.
//
// Every component runs as a child process in its own process group, with its log in the
// test's directory. Close stops the whole group, and so does the end of the context the
// component was started with; on Linux a child is also killed when the test binary dies.
// A component that cannot start is an error that says why, never a skip.
//
// The package is meant for Linux (the CI machine is Debian); etcd comes from Debian's
// etcd-server package and kube-apiserver is built once from the module in
// test/e2e/kube-apiserver and cached (see KubeAPIServerBinary).
package harness
