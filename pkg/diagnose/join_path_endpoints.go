package diagnose

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// joinServices are the AWS services a node in a subnet without a way to the internet reaches
// through VPC endpoints to join the cluster (EKS "Deploy private clusters with limited
// internet access"): EC2 (nodeadm and the VPC CNI describe the instance), ECR's API and
// registry and S3 (image layers) for the pause, aws-node and kube-proxy images, and STS.
// The EKS API itself is reached through the cluster's private endpoint, which karpnet cannot
// see without eks:DescribeCluster.
func joinServices() []string { return []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"} }

// endpointsFor returns, for each service in joinServices, whether the subnet's VPC has a
// usable endpoint for it: found lists the services, missing each missing one with why, and
// fixes the aws commands that would make them usable. An interface endpoint must be
// available with private DNS on; S3 may instead be a gateway endpoint associated with the
// subnet's route table.
func endpointsFor(x *Index, subnet *snapshot.Subnet, table string) (found, missing, fixes []string) {
	region := subnetRegion(subnet, x.Snapshot.Region)
	for _, svc := range joinServices() {
		var why []string
		fix := ""
		ok := false
		for _, e := range x.net.endpoints[subnet.VpcID] {
			if !serviceIs(e.ServiceName, region, svc) {
				continue
			}
			problem, cmd := endpointProblem(e, svc, table)
			if problem == "" {
				ok = true
				break
			}
			why = append(why, e.ID+" "+problem)
			if fix == "" {
				fix = cmd
			}
		}
		switch {
		case ok:
			found = append(found, svc)
			continue
		case len(why) > 0:
			missing = append(missing, fmt.Sprintf("%s (%s)", svc, strings.Join(why, "; ")))
		default:
			missing = append(missing, svc)
		}
		if fix == "" {
			fix = createEndpointCommand(subnet, region, svc, table)
		}
		fixes = append(fixes, fix)
	}
	return found, missing, fixes
}

// createEndpointCommand is the aws command that creates the endpoint for svc a node in subnet
// needs: a gateway endpoint on the route table for S3, an interface endpoint with private DNS
// in the subnet for the others.
func createEndpointCommand(subnet *snapshot.Subnet, region, svc, table string) string {
	name := "com.amazonaws." + cmp.Or(region, "REGION") + "." + svc
	if svc == "s3" {
		return fmt.Sprintf("aws ec2 create-vpc-endpoint --vpc-id %s --vpc-endpoint-type Gateway --service-name %s "+
			"--route-table-ids %s", subnet.VpcID, name, table)
	}
	return fmt.Sprintf("aws ec2 create-vpc-endpoint --vpc-id %s --vpc-endpoint-type Interface --service-name %s "+
		"--subnet-ids %s --security-group-ids SG_ALLOWING_443_FROM_NODES --private-dns-enabled", subnet.VpcID, name, subnet.ID)
}

// endpointProblem says why an endpoint for svc does not serve a subnet whose route table is
// table, and the command that fixes it when one does; "" when it serves it.
func endpointProblem(e *snapshot.VPCEndpoint, svc, table string) (problem, fix string) {
	if !strings.EqualFold(e.State, "available") {
		return "is " + e.State, ""
	}
	switch {
	case strings.EqualFold(e.Type, "Gateway") && svc == "s3":
		if !slices.Contains(e.RouteTableIDs, table) {
			return "is a gateway endpoint not associated with route table " + table,
				fmt.Sprintf("aws ec2 modify-vpc-endpoint --vpc-endpoint-id %s --add-route-table-ids %s", e.ID, table)
		}
	case strings.EqualFold(e.Type, "Gateway") || strings.EqualFold(e.Type, "GatewayLoadBalancer"):
		return "is a " + e.Type + " endpoint", ""
	case !e.PrivateDNS:
		return "has private DNS off", fmt.Sprintf("aws ec2 modify-vpc-endpoint --vpc-endpoint-id %s --private-dns-enabled", e.ID)
	}
	return "", ""
}

// serviceIs reports whether an endpoint service name such as com.amazonaws.us-west-2.ecr.api
// (or cn.com.amazonaws.cn-north-1.ecr.api) is svc in region; any region when region is "".
func serviceIs(name, region, svc string) bool {
	rest, ok := strings.CutSuffix(name, "."+svc)
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, "amazonaws.")
	if i < 0 {
		return false
	}
	got := rest[i+len("amazonaws."):]
	return got != "" && !strings.Contains(got, ".") && (region == "" || got == region)
}

// subnetRegion returns the Region of a subnet from its zone: us-west-2a, the Local Zone
// us-west-2-lax-1a and the Wavelength Zone us-east-1-wl1-bos-wlz-1 all give the Region
// before the first part that starts with a digit, with that part's digits. Without a zone
// that parses it is fallback.
func subnetRegion(subnet *snapshot.Subnet, fallback string) string {
	parts := strings.Split(subnet.Zone, "-")
	for i, p := range parts {
		if i < 2 || p == "" || !unicode.IsDigit(rune(p[0])) {
			continue
		}
		n := strings.IndexFunc(p, func(r rune) bool { return !unicode.IsDigit(r) })
		if n < 0 {
			n = len(p)
		}
		return strings.Join(append(slices.Clone(parts[:i]), p[:n]), "-")
	}
	return fallback
}
