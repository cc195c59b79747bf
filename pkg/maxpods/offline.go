package maxpods

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// instanceTypes is EC2's DescribeInstanceTypes data as moto 5.2.1 (Apache-2.0) carries it in
// moto/ec2/resources/instance_types.json.gz, last updated there on 2026-05-01: for every type
// that is also in the VPC CNI's eni-max-pods.txt (1,263 types), the network limits as
// snapshot.InstanceType JSON (name, hypervisor, bareMetal, vcpus, maxENIs,
// defaultNetworkCardIndex, networkCards, ipv4PerENI), one a line, sorted by name. Their
// secondary-IP max pods equal eni-max-pods.txt's for every type (TestMaxPodsMatchesENIMaxPodsFile).
//
//go:embed instance-types.jsonl
var instanceTypes []byte

// OfflineSource names where the embedded instance types come from.
const OfflineSource = "EC2 DescribeInstanceTypes data embedded in karpnet (moto 5.2.1)"

// OfflineDate is the date of the embedded data.
const OfflineDate = "2026-05-01"

// offlineTypes decodes the embedded table once; it never changes after.
var offlineTypes = sync.OnceValues(func() (map[string]snapshot.InstanceType, error) {
	types := map[string]snapshot.InstanceType{}
	sc := bufio.NewScanner(bytes.NewReader(instanceTypes))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it snapshot.InstanceType
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("decoding the embedded instance types, line %q: %w", sc.Text(), err)
		}
		types[it.Name] = it
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the embedded instance types: %w", err)
	}
	return types, nil
})

// Offline returns the network limits of instance type name from the embedded table, and
// whether the table knows it.
func Offline(name string) (snapshot.InstanceType, bool) {
	types, err := offlineTypes()
	if err != nil {
		return snapshot.InstanceType{}, false
	}
	t, ok := types[name]
	return t, ok
}

// OfflineTypes returns every instance type of the embedded table, by name. The map is shared:
// callers must not change it.
func OfflineTypes() (map[string]snapshot.InstanceType, error) { return offlineTypes() }
