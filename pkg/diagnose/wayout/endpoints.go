package wayout

import (
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
// The EKS API itself is reached through the cluster's private endpoint, whose access karpnet does
// not read (it calls no EKS API).
func joinServices() []string { return []string{"ec2", "ecr.api", "ecr.dkr", "s3", "sts"} }

// endpointsFor returns, for each service in joinServices, whether the subnet's VPC has a
// usable endpoint for it: found lists the services, missing each missing one with why, and
// fixes the aws commands that would make them usable. An interface endpoint must be
// available with private DNS on; S3 may instead be a gateway endpoint associated with the
// subnet's route table.
func (n *Net) endpointsFor(subnet *snapshot.Subnet, table string) (found, missing []string, fixes []Change) {
	region := subnetRegion(subnet, n.s.Region)
	for _, svc := range joinServices() {
		var why []string
		var fix *Change
		ok := false
		for _, e := range n.endpoints[subnet.VpcID] {
			if !serviceIs(e.ServiceName, region, svc) {
				continue
			}
			problem, cmd := endpointProblem(e, svc, table)
			if problem == "" {
				ok = true
				break
			}
			why = append(why, e.ID+" "+problem)
			if fix == nil {
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
		if fix == nil {
			if region == "" {
				// The service name holds the Region: without it there is no command to give.
				continue
			}
			fix = createEndpointChange(subnet, region, svc, table)
		}
		fixes = append(fixes, *fix)
	}
	return found, missing, fixes
}

// createEndpointChange is the aws command that creates the endpoint for svc a node in subnet
// needs: a gateway endpoint on the route table for S3, an interface endpoint with private DNS
// in the subnet for the others. An interface endpoint gets no --security-group-ids: karpnet
// cannot name a group that admits TCP 443 from the nodes, and without one EC2 gives the
// endpoint's network interfaces the VPC's default security group (EC2 CreateVpcEndpoint,
// SecurityGroupIds); the remedy's prose says what the group must admit.
func createEndpointChange(subnet *snapshot.Subnet, region, svc, table string) *Change {
	name := "com.amazonaws." + region + "." + svc
	if svc == "s3" {
		return &Change{Argv: []string{"aws", "ec2", "create-vpc-endpoint", "--vpc-id", subnet.VpcID,
			"--vpc-endpoint-type", "Gateway", "--service-name", name, "--route-table-ids", table},
			Changes: "vpc/" + subnet.VpcID + ": a gateway endpoint for " + name + " on route table " + table}
	}
	return &Change{Argv: []string{"aws", "ec2", "create-vpc-endpoint", "--vpc-id", subnet.VpcID,
		"--vpc-endpoint-type", "Interface", "--service-name", name, "--subnet-ids", subnet.ID, "--private-dns-enabled"},
		Changes: "vpc/" + subnet.VpcID + ": an interface endpoint for " + name + " in " + subnet.ID}
}

// endpointProblem says why an endpoint for svc does not serve a subnet whose route table is
// table, and the command that fixes it when one does (nil when none does); "" when it serves it.
func endpointProblem(e *snapshot.VPCEndpoint, svc, table string) (problem string, fix *Change) {
	if !strings.EqualFold(e.State, "available") {
		return "is " + e.State, nil
	}
	switch {
	case strings.EqualFold(e.Type, "Gateway") && svc == "s3":
		if !slices.Contains(e.RouteTableIDs, table) {
			return "is a gateway endpoint not associated with route table " + table,
				&Change{Argv: []string{"aws", "ec2", "modify-vpc-endpoint", "--vpc-endpoint-id", e.ID,
					"--add-route-table-ids", table}, Changes: "vpc-endpoint/" + e.ID}
		}
	case strings.EqualFold(e.Type, "Gateway") || strings.EqualFold(e.Type, "GatewayLoadBalancer"):
		return "is a " + e.Type + " endpoint", nil
	case !e.PrivateDNS:
		return "has private DNS off", &Change{Argv: []string{"aws", "ec2", "modify-vpc-endpoint", "--vpc-endpoint-id",
			e.ID, "--private-dns-enabled"}, Changes: "vpc-endpoint/" + e.ID}
	}
	return "", nil
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
