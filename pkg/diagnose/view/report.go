package view

// NotRun is a check that was not run: the snapshot has a gap for each source of Needs, which
// the check needs to judge at all (its Spec.Needs).
type NotRun struct {
	ID    string   `json:"id"`
	Needs []string `json:"needs"`
	// Context is the kubeconfig context of the cluster, in a report over several clusters.
	Context string `json:"context,omitempty"`
}

// SubnetUse is one subnet the report's nodes use, an EC2NodeClass selects, or (with custom
// networking) an ENIConfig gives pods, with its free addresses.
type SubnetUse struct {
	ID     string `json:"id"`
	CIDR   string `json:"cidr"`
	Zone   string `json:"zone"`
	ZoneID string `json:"zoneID,omitempty"`
	// AvailableIPs is EC2's AvailableIpAddressCount; UsableIPs the CIDR's size less AWS's five.
	AvailableIPs int32 `json:"availableIPs"`
	UsableIPs    int64 `json:"usableIPs"`
	// NodeClasses select the subnet in their status.subnets, have nodes in it, or (EKS Auto
	// Mode) select it for pods in podSubnetSelectorTerms: EC2NodeClass names, and EKS Auto Mode
	// NodeClasses as nodeclass/NAME.
	NodeClasses []string `json:"nodeClasses,omitempty"`
	// Nodes counts the nodes whose instance (primary ENI) is in the subnet; ENINodes the
	// nodes whose instance is in another subnet but that have an ENI in this one (the pods'
	// ENIs under custom networking).
	Nodes    int `json:"nodes"`
	ENINodes int `json:"eniNodes,omitempty"`
	// PodSubnet is true for an ENIConfig subnet, or an Auto Mode NodeClass's pod subnet, that
	// pods take addresses from.
	PodSubnet bool `json:"podSubnet,omitempty"`
	// FreeBlocks counts the free /28 blocks (those a prefix can be carved from) where the
	// subnet's block map is known: prefixes are carved there and its every interface was read.
	FreeBlocks *int `json:"freeBlocks,omitempty"`
	// Context is the kubeconfig context of the cluster that uses the subnet, in a report over
	// several clusters.
	Context string `json:"context,omitempty"`
}
