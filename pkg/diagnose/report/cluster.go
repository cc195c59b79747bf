package report

import (
	"time"
)

// StatusUnreachable is the status of a cluster whose API server could not be read at all.
const StatusUnreachable = "unreachable"

// ClusterReport is one cluster of a report over several kubeconfig contexts.
type ClusterReport struct {
	Context string `json:"context"`
	// ClusterName is the EKS cluster's name, Cluster its API server URL.
	ClusterName string `json:"clusterName,omitempty"`
	Cluster     string `json:"cluster,omitempty"`
	Region      string `json:"region,omitempty"`
	// Account is the AWS account EC2 was read in, when known (see snapshot.Snapshot.Account).
	Account string    `json:"account,omitempty"`
	Taken   time.Time `json:"taken"`
	// Status is the cluster's worst finding's severity, ok without findings, or unreachable
	// when its API server could not be read; Gap then says why.
	Status  string  `json:"status"`
	Gap     string  `json:"gap,omitempty"`
	Summary Summary `json:"summary"`
}
