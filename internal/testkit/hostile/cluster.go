package hostile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/testutil/kubelist"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Cluster is a Kubernetes API server and an EC2 endpoint over one set of fixtures, each with
// its faults.
type Cluster struct {
	Kube *Kube
	EC2  *ec2sim.Server
}

// LoadCluster reads the fixtures of dir: every kubectl List YAML file named by kubeFiles
// for the Kubernetes objects, and ec2.json (instances, subnets, securityGroups,
// placementGroups and instanceTypes as snapshot types) for EC2.
func LoadCluster(dir string, kubeFiles ...string) (*Cluster, error) {
	var objects []unstructured.Unstructured
	for _, f := range kubeFiles {
		items, err := kubelist.Read(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		objects = append(objects, items...)
	}
	sim, err := LoadEC2(filepath.Join(dir, "ec2.json"))
	if err != nil {
		return nil, err
	}
	return &Cluster{Kube: NewKube(objects...), EC2: sim}, nil
}

// LoadEC2 returns a simulated EC2 holding what a JSON file of snapshot types lists.
func LoadEC2(file string) (*ec2sim.Server, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	var state struct {
		Instances       []snapshot.Instance       `json:"instances"`
		Subnets         []snapshot.Subnet         `json:"subnets"`
		SecurityGroups  []snapshot.SecurityGroup  `json:"securityGroups"`
		PlacementGroups []snapshot.PlacementGroup `json:"placementGroups"`
		InstanceTypes   []snapshot.InstanceType   `json:"instanceTypes"`
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", file, err)
	}
	sim := ec2sim.New()
	sim.AddInstances(state.Instances...)
	sim.AddSubnets(state.Subnets...)
	sim.AddSecurityGroups(state.SecurityGroups...)
	sim.AddPlacementGroups(state.PlacementGroups...)
	sim.AddInstanceTypes(state.InstanceTypes...)
	return sim, nil
}
