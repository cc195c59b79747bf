package cmd

import (
	"context"
	"fmt"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	_ "k8s.io/client-go/plugin/pkg/client/auth" // exec, OIDC and other kubeconfig auth providers
	"k8s.io/client-go/rest"

	"github.com/karpnet/kubectl-karpnet/pkg/collect"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// liveCollector builds a collector from kubectl's flags and the standard AWS configuration.
// A missing or broken AWS configuration is not fatal: it becomes a gap in the snapshot.
func liveCollector(ctx context.Context, o *commonOptions) (*collect.Collector, error) {
	cfg, err := o.configFlags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %w: check --kubeconfig and --context", err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{}
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes dynamic client: %w", err)
	}
	// --request-timeout bounds EC2 requests as it bounds Kubernetes ones.
	c := &collect.Collector{Kube: kube, Dynamic: dyn, REST: kube.CoreV1().RESTClient(), Region: o.region, Cluster: cfg.Host, RequestTimeout: cfg.Timeout,
		ClusterName: o.clusterName}
	if e := cfg.ExecProvider; e != nil {
		c.KubeconfigClusterName = collect.ClusterNameFromExec(e.Command, e.Args)
	}
	if raw, err := o.configFlags.ToRawKubeConfigLoader().RawConfig(); err == nil {
		c.Context = raw.CurrentContext
		if o.configFlags.Context != nil && *o.configFlags.Context != "" {
			c.Context = *o.configFlags.Context
		}
	}
	api, err := collect.LoadEC2(ctx, o.region, o.profile)
	if err != nil {
		c.EC2Gap = &snapshot.Gap{Source: snapshot.SourceEC2, Reason: err.Error(),
			Remedy: "fix the AWS configuration (--profile, --region, AWS_PROFILE, aws sso login)"}
		return c, nil
	}
	c.EC2 = api
	return c, nil
}
