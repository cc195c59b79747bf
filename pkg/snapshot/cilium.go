package snapshot

// Cilium's agent DaemonSet and settings, read from kube-system.
const (
	CiliumNamespace = "kube-system"
	CiliumDaemonSet = "cilium"
	CiliumConfigMap = "cilium-config"
	// CiliumTaintDefault is the taint Cilium's operator removes once the agent on a node is
	// ready (pkg/defaults AgentNotReadyNodeTaint); cilium-config's agent-not-ready-taint-key
	// changes it.
	CiliumTaintDefault = "node.cilium.io/agent-not-ready"
	// CiliumIPAMENI is cilium-config's ipam in ENI mode: pods take addresses of ENIs the
	// operator attaches, as with the VPC CNI.
	CiliumIPAMENI = "eni"
)

// The cilium-config keys karpnet keeps: the IPAM mode, the startup taint, prefix delegation
// and the node-level ENI defaults the agent writes into each CiliumNode it creates.
const (
	CiliumKeyIPAM             = "ipam"
	CiliumKeyTaintKey         = "agent-not-ready-taint-key"
	CiliumKeyPrefixDelegation = "aws-enable-prefix-delegation"
	CiliumKeyFirstIndex       = "eni-first-interface-index"
	CiliumKeyHealthChecking   = "enable-endpoint-health-checking"
)

// CiliumKeys returns the cilium-config keys a snapshot keeps.
func CiliumKeys() []string {
	return []string{CiliumKeyFirstIndex, CiliumKeyHealthChecking, CiliumKeyPrefixDelegation, CiliumKeyIPAM, CiliumKeyTaintKey}
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
}
