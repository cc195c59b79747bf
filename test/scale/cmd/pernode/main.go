// Command pernode is the per-node baseline of the scale benchmark: it diagnoses nodes the way
// per-node tools do, listing the nodes and then calling DescribeInstances once for each node's
// instance, one after the other. The whole list is read first, as `kubectl get nodes` would:
// paging through it while describing would outlive the list's continue token (etcd compacts
// it after about five minutes) on large clusters. It reads the kubeconfig from KUBECONFIG and AWS settings from
// the environment, and prints how many nodes it described and how many calls failed as JSON.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Result is what pernode prints.
type Result struct {
	Nodes     int `json:"nodes"`
	Described int `json:"described"`
	Failed    int `json:"failed"`
}

func main() {
	r, err := run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "pernode:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, "pernode:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) (Result, error) {
	var r Result
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return r, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return r, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return r, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	client := ec2.NewFromConfig(awsCfg)
	var ids []string
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := kube.CoreV1().Nodes().List(ctx, opts)
		if err != nil {
			return r, fmt.Errorf("listing nodes: %w", err)
		}
		for _, n := range list.Items {
			r.Nodes++
			if id := n.Spec.ProviderID[strings.LastIndex(n.Spec.ProviderID, "/")+1:]; strings.HasPrefix(id, "i-") {
				ids = append(ids, id)
			}
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	for _, id := range ids {
		if _, err := client.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{id}}); err != nil {
			r.Failed++
			continue
		}
		r.Described++
	}
	return r, nil
}
