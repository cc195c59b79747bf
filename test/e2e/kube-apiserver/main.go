// Command kube-apiserver is the real Kubernetes API server, built from k8s.io/kubernetes at the
// version in go.mod, for karpnet's end-to-end tests. It has its own module so the project's
// go.mod stays free of k8s.io/kubernetes.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
