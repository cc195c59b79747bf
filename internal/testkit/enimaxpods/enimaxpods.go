// Package enimaxpods holds the VPC CNI's table of max pods per instance type,
// misc/eni-max-pods.txt of aws/amazon-vpc-cni-k8s at b52188387f2e2f10bf289ace929d6a63b176a4fa
// (Apache-2.0, copied verbatim), for the tests that check karpnet's IP-capacity figures
// against it.
package enimaxpods

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

//go:embed eni-max-pods.txt
var table string

// Table returns the max pods of every instance type the table lists, by type name.
func Table() (map[string]int64, error) {
	pods := map[string]int64{}
	for line := range strings.Lines(table) {
		fields := strings.Fields(line)
		if len(fields) != 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		n, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("parsing eni-max-pods.txt line %q: %w", strings.TrimSpace(line), err)
		}
		pods[fields[0]] = n
	}
	return pods, nil
}
