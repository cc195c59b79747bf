package snapshot

import (
	"net/url"
	"slices"
	"strings"
)

// The aws-node settings karpnet reads. A snapshot keeps these env values of the aws-node
// container and no other: the rest may hold credentials or proxy URLs with passwords.
const (
	EnvCustomNetwork    = "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG"
	EnvENIConfigLabel   = "ENI_CONFIG_LABEL_DEF"
	EnvENIConfigAnnot   = "ENI_CONFIG_ANNOTATION_DEF"
	EnvPrefixDelegation = "ENABLE_PREFIX_DELEGATION"
	EnvPodENI           = "ENABLE_POD_ENI"
	EnvIPv6             = "ENABLE_IPv6"
	EnvSubnetDiscovery  = "ENABLE_SUBNET_DISCOVERY"
	EnvMultiNIC         = "ENABLE_MULTI_NIC"
	EnvMaxENI           = "MAX_ENI"
	EnvWarmENITarget    = "WARM_ENI_TARGET"
	EnvWarmIPTarget     = "WARM_IP_TARGET"
	EnvMinimumIPTarget  = "MINIMUM_IP_TARGET"
	EnvWarmPrefixTarget = "WARM_PREFIX_TARGET"
	EnvClusterName      = "CLUSTER_NAME"
	// EnvDisableLeakedENICleanup turns off the hourly deletion of the ENIs the VPC CNI left
	// available (v1.13.0+).
	EnvDisableLeakedENICleanup = "DISABLE_LEAKED_ENI_CLEANUP"
	// EnvDisableENIProvisioning and EnvIMDSOnlyMode stop ipamd from creating ENIs, and with it
	// its leaked-ENI cleanup (amazon-vpc-cni-k8s pkg/ipamd/ipamd.go, disableLeakedENICleanup).
	EnvDisableENIProvisioning = "DISABLE_NETWORK_RESOURCE_PROVISIONING"
	EnvIMDSOnlyMode           = "ENABLE_IMDS_ONLY_MODE"
	// EnvNetworkPolicyMode is standard or strict (v1.17.1+): strict denies a new pod's traffic
	// until a policy allows it.
	EnvNetworkPolicyMode = "NETWORK_POLICY_ENFORCING_MODE"
)

// KeptEnv returns, sorted, the aws-node env names a snapshot keeps.
func KeptEnv() []string {
	names := []string{EnvCustomNetwork, EnvENIConfigLabel, EnvENIConfigAnnot, EnvPrefixDelegation, EnvPodENI, EnvIPv6,
		EnvSubnetDiscovery, EnvMultiNIC, EnvMaxENI, EnvWarmENITarget, EnvWarmIPTarget, EnvMinimumIPTarget,
		EnvWarmPrefixTarget, EnvClusterName, EnvDisableLeakedENICleanup, EnvNetworkPolicyMode, EnvDisableENIProvisioning,
		EnvIMDSOnlyMode}
	slices.Sort(names)
	return names
}

// Redact removes what a snapshot must not carry: aws-node env values karpnet does not read,
// and the user and password of a cluster URL (https://user:pass@host). Collection calls it
// before anything is saved or printed, and Read on files written before it existed.
func (s *Snapshot) Redact() {
	if a := s.AWSNode; a != nil {
		kept := KeptEnv()
		for name := range a.Env {
			if _, ok := slices.BinarySearch(kept, name); !ok {
				delete(a.Env, name)
			}
		}
	}
	s.Cluster = withoutUserinfo(s.Cluster)
}

// withoutUserinfo returns a URL without its user information (everything between "://"
// and the last "@" before the host's end), even when the rest does not parse as a URL.
func withoutUserinfo(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		if u.User == nil {
			return raw
		}
		u.User = nil
		return u.String()
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	authority, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if i := strings.LastIndex(authority, "@"); i >= 0 {
		return scheme + "://" + authority[i+1:] + path
	}
	return raw
}
