package snapshot

import (
	"strconv"
	"strings"
)

// Cilium's agent DaemonSet and settings, read from kube-system.
const (
	CiliumNamespace = "kube-system"
	CiliumDaemonSet = "cilium"
	CiliumConfigMap = "cilium-config"
	// CiliumOperator is the operator's Deployment, whose container args may set what
	// cilium-config does not (command-line flags win over the config-map).
	CiliumOperator = "cilium-operator"
	// CiliumOperatorPrefixDelegationFlag is the operator flag that turns prefix delegation on
	// (operator/pkg/ipam aws.go), the same setting as cilium-config's
	// aws-enable-prefix-delegation.
	CiliumOperatorPrefixDelegationFlag = "--aws-enable-prefix-delegation"
	// CiliumTaintDefault is the taint Cilium's operator removes once the agent on a node is
	// ready (pkg/defaults AgentNotReadyNodeTaint); cilium-config's agent-not-ready-taint-key
	// changes it.
	CiliumTaintDefault = "node.cilium.io/agent-not-ready"
	// CiliumIPAMENI is cilium-config's ipam in ENI mode: pods take addresses of ENIs the
	// operator attaches, as with the VPC CNI.
	CiliumIPAMENI = "eni"
	// CiliumIPAMClusterPool and CiliumIPAMMultiPool are the IPAM modes whose operator writes
	// a CiliumNode's status.ipam.operator-status.error.
	CiliumIPAMClusterPool = "cluster-pool"
	CiliumIPAMMultiPool   = "multi-pool"
)

// The cilium-config keys karpnet keeps: the IPAM mode, the startup taint, prefix delegation
// and the node-level ENI defaults the agent writes into each CiliumNode it creates.
const (
	CiliumKeyIPAM             = "ipam"
	CiliumKeyTaintKey         = "agent-not-ready-taint-key"
	CiliumKeyPrefixDelegation = "aws-enable-prefix-delegation"
	CiliumKeyFirstIndex       = "eni-first-interface-index"
	CiliumKeyHealthChecking   = "enable-endpoint-health-checking"
	CiliumKeyHealth           = "enable-health-checking"
)

// CiliumKeys returns the cilium-config keys a snapshot keeps.
func CiliumKeys() []string {
	return []string{CiliumKeyFirstIndex, CiliumKeyHealthChecking, CiliumKeyHealth, CiliumKeyPrefixDelegation, CiliumKeyIPAM,
		CiliumKeyTaintKey}
}

// Cilium is what karpnet read of Cilium: its agent DaemonSet (kube-system/cilium) and the
// cilium-config ConfigMap. nil when the DaemonSet does not exist.
type Cilium struct {
	Image string `json:"image,omitempty"`
	// Scheduling is the agent's pod template's scheduling constraints.
	Scheduling *Scheduling `json:"scheduling,omitempty"`
	// Config holds the cilium-config values of CiliumKeys; ConfigRead is false when the
	// ConfigMap was not found (a gap says why when it could not be read).
	Config     map[string]string `json:"config,omitempty"`
	ConfigRead bool              `json:"configRead,omitempty"`
	// OperatorPrefixDelegation is the value of --aws-enable-prefix-delegation in the
	// kube-system/cilium-operator Deployment's container args; nil when the args do not set it,
	// the Deployment does not exist or was not read (read in ENI mode only).
	OperatorPrefixDelegation *bool `json:"operatorPrefixDelegation,omitempty"`
	// HostNetwork are the DaemonSets, of every namespace, whose pods run in the host's network
	// namespace and so take no pod address; HostNetworkRead is true when the DaemonSets were
	// listed (in ENI mode only; a gap says why when they could not be).
	HostNetwork     []DaemonSet `json:"hostNetwork,omitempty"`
	HostNetworkRead bool        `json:"hostNetworkRead,omitempty"`
}

// DaemonSet is a DaemonSet by namespace and name, with its pod template's scheduling.
type DaemonSet struct {
	Namespace  string      `json:"namespace"`
	Name       string      `json:"name"`
	Scheduling *Scheduling `json:"scheduling,omitempty"`
}

// PrefixDelegation reports whether Cilium's operator allocates prefixes: the operator's
// --aws-enable-prefix-delegation when its args set it, else cilium-config's
// aws-enable-prefix-delegation. The second value says which of the two decided ("" when
// neither sets it).
func (c *Cilium) PrefixDelegation() (bool, string) {
	if c == nil {
		return false, ""
	}
	if c.OperatorPrefixDelegation != nil {
		return *c.OperatorPrefixDelegation, "the cilium-operator Deployment's " + CiliumOperatorPrefixDelegationFlag
	}
	if v, ok := c.Config[CiliumKeyPrefixDelegation]; ok {
		on, err := strconv.ParseBool(strings.TrimSpace(v))
		return err == nil && on, "cilium-config's " + CiliumKeyPrefixDelegation
	}
	return false, ""
}

// IPAM returns cilium-config's ipam mode ("" when unknown).
func (c *Cilium) IPAM() string {
	if c == nil {
		return ""
	}
	return c.Config[CiliumKeyIPAM]
}

// TaintKey returns the key of the taint Cilium's operator removes from a node once its agent
// is ready.
func (c *Cilium) TaintKey() string {
	if c != nil && c.Config[CiliumKeyTaintKey] != "" {
		return c.Config[CiliumKeyTaintKey]
	}
	return CiliumTaintDefault
}

// CiliumNode is the part of a cilium.io/v2 CiliumNode that ENI IPAM reads: the ENI spec the
// operator attaches interfaces by, the interfaces it found, and its IPAM state.
type CiliumNode struct {
	Name       string `json:"name"`
	InstanceID string `json:"instanceID,omitempty"`
	// FirstInterfaceIndex is spec.eni.first-interface-index: interfaces below it carry no
	// pod address. nil when unset (the operator then allocates nothing).
	FirstInterfaceIndex *int32            `json:"firstInterfaceIndex,omitempty"`
	SubnetIDs           []string          `json:"subnetIDs,omitempty"`
	SubnetTags          map[string]string `json:"subnetTags,omitempty"`
	SecurityGroups      []string          `json:"securityGroups,omitempty"`
	SecurityGroupTags   map[string]string `json:"securityGroupTags,omitempty"`
	// UsePrimaryAddress and DisablePrefixDelegation are spec.eni's switches of the same names.
	UsePrimaryAddress       bool `json:"usePrimaryAddress,omitempty"`
	DisablePrefixDelegation bool `json:"disablePrefixDelegation,omitempty"`
	// ExcludeInterfaceTags is spec.eni.exclude-interface-tags: interfaces carrying all these
	// tags are not Cilium's to allocate from.
	ExcludeInterfaceTags map[string]string `json:"excludeInterfaceTags,omitempty"`
	// ENIs are status.eni.enis, sorted by interface number.
	ENIs []CiliumENI `json:"enis,omitempty"`
	// OperatorError is status.ipam.operator-status.error.
	OperatorError string `json:"operatorError,omitempty"`
	// Used is the number of addresses in status.ipam.used (agents before Cilium 1.20).
	Used int `json:"used,omitempty"`
}

// CiliumENI is one interface of a CiliumNode's status.eni.enis.
type CiliumENI struct {
	ID string `json:"id"`
	// Number is the interface's device index.
	Number         int32    `json:"number"`
	Subnet         string   `json:"subnet,omitempty"`
	SecurityGroups []string `json:"securityGroups,omitempty"`
	Addresses      int      `json:"addresses,omitempty"`
	Prefixes       int      `json:"prefixes,omitempty"`
	// Tags are the interface's tags, as Cilium's operator recorded them.
	Tags map[string]string `json:"tags,omitempty"`
}

// Excluded reports whether spec.eni.exclude-interface-tags leaves the interface out of
// Cilium's allocation: it carries every one of those tags with the same value.
func (e *CiliumENI) Excluded(cn *CiliumNode) bool {
	if len(cn.ExcludeInterfaceTags) == 0 {
		return false
	}
	for k, v := range cn.ExcludeInterfaceTags {
		if got, ok := e.Tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}
