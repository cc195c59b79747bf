package cmd

import (
	"cmp"
	"context"
	"fmt"
	"strings"

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
	return buildCollector(ctx, o, o.configFlags, nil)
}

// buildCollector builds a collector over the kubeconfig flags. The AWS profile and Region come
// from the context's credential plugin unless --profile and --region say otherwise
// (collect.AWSFromExec), so EC2 is read as the identity kubectl authenticates with; with budget
// set (a run over several clusters) every EC2 request goes through budget.
func buildCollector(ctx context.Context, o *commonOptions, flags *kubeFlags, budget *collect.EC2Budget) (*collect.Collector, error) {
	if err := knownContext(flags); err != nil {
		return nil, err
	}
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %w: check --kubeconfig and --context", kubeconfigError(err))
	}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{}
	cfg.Wrap(collect.RecordKubeAnswers)
	cfg.Wrap(collect.LimitKubeAnswers)
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
	// --request-timeout bounds EC2 requests as it bounds Kubernetes ones, and with it the
	// whole collection (collect.DefaultDeadline, or four requests' time when that is longer);
	// --request-timeout 0 lifts both.
	c := &collect.Collector{Kube: kube, Dynamic: dyn, REST: kube.CoreV1().RESTClient(), Region: o.region, Cluster: cfg.Host, RequestTimeout: cfg.Timeout,
		ClusterName: o.clusterName}
	if cfg.Timeout > 0 {
		c.Deadline = max(collect.DefaultDeadline, 4*cfg.Timeout)
	}
	var aws collect.ExecAWS
	if e := cfg.ExecProvider; e != nil {
		c.KubeconfigClusterName = collect.ClusterNameFromExec(e.Command, e.Args)
		env := map[string]string{}
		for _, v := range e.Env {
			env[v.Name] = v.Value
		}
		aws = collect.AWSFromExec(e.Command, e.Args, env)
	}
	if raw, err := flags.ToRawKubeConfigLoader().RawConfig(); err == nil {
		c.Context = raw.CurrentContext
		if flags.Context != "" {
			c.Context = flags.Context
		}
	}
	profile := cmp.Or(o.profile, aws.Profile)
	api, err := collect.LoadEC2(ctx, cmp.Or(o.region, aws.Region), profile, o.sdkLog())
	if err != nil {
		c.EC2Gap = &snapshot.Gap{Source: snapshot.SourceEC2, Reason: err.Error(),
			Remedy: "fix the AWS configuration (--profile, --region, AWS_PROFILE, aws sso login)"}
		return c, nil
	}
	c.EC2 = api
	if budget != nil {
		c.EC2Budget, c.EC2Identity, c.EC2Account = budget, "profile "+cmp.Or(profile, "(default chain)"), collect.ProfileAccount(ctx, profile)
	}
	return c, nil
}

// knownContext is the usage error (exit 2, as for --contexts) of a --context the kubeconfig
// does not have, listing the ones it has; nil when --context is not given, names a context, or
// the kubeconfig cannot be read (loading it says why).
func knownContext(flags *kubeFlags) error {
	if flags.Context == "" {
		return nil
	}
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil
	}
	if _, ok := raw.Contexts[flags.Context]; ok {
		return nil
	}
	known := kubeconfigContexts(&raw)
	if len(known) == 0 {
		return usageErrorf("--context: unknown context %q: the kubeconfig has no context: check --kubeconfig and KUBECONFIG", flags.Context)
	}
	return usageErrorf("--context: unknown context %q: the kubeconfig has %s", flags.Context, strings.Join(known, ", "))
}
