package cmdverify

import (
	"strings"
	"testing"
	"time"
)

// startAWS starts the AWS CLI verifier, installing the CLI when the machine lacks it; a
// machine where that fails fails the test with the reason.
func startAWS(t *testing.T) *AWS {
	t.Helper()
	py, err := FindAWSCLI(t.Context(), true)
	if err != nil {
		t.Fatalf("the AWS CLI verifier needs the AWS CLI v1: %v", err)
	}
	a, err := StartAWS(t.Context(), py, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func TestAWSVerify(t *testing.T) {
	a := startAWS(t)
	t.Logf("%s (%s)", a.Version, a.Python)
	start := time.Now()
	good := []struct {
		argv []string
		op   string
	}{
		{[]string{"aws", "ec2", "create-vpc-endpoint", "--vpc-id", "vpc-0abc", "--vpc-endpoint-type", "Interface",
			"--service-name", "com.amazonaws.us-west-2.ec2", "--subnet-ids", "subnet-0abc", "--private-dns-enabled"}, "CreateVpcEndpoint"},
		{[]string{"aws", "ec2", "modify-network-interface-attribute", "--network-interface-id", "eni-0abc",
			"--connection-tracking-specification", "TcpEstablishedTimeout=3600,UdpStreamTimeout=60"}, "ModifyNetworkInterfaceAttribute"},
		{[]string{"aws", "ec2", "authorize-security-group-egress", "--group-id", "sg-0abc", "--ip-permissions",
			`[{"IpProtocol":"-1","UserIdGroupPairs":[{"GroupId":"sg-0abc"}]}]`}, "AuthorizeSecurityGroupEgress"},
		{[]string{"aws", "ec2", "describe-instances", "--instance-ids", "i-0abc", "--query", "Reservations[].Instances[].StateReason"}, "DescribeInstances"},
		{[]string{"aws", "eks", "update-addon", "--cluster-name", "demo", "--addon-name", "vpc-cni",
			"--configuration-values", `{"enableNetworkPolicy":"true"}`}, "UpdateAddon"},
		{[]string{"aws", "eks", "describe-addon-versions", "--addon-name", "vpc-cni"}, "DescribeAddonVersions"},
		{[]string{"aws", "route53", "list-hosted-zones-by-vpc", "--vpc-id", "vpc-0abc", "--vpc-region", "us-west-2"}, "ListHostedZonesByVPC"},
		{[]string{"aws", "ec2", "create-route", "--route-table-id", "rtb-0abc", "--destination-cidr-block", "0.0.0.0/0",
			"--nat-gateway-id", "nat-0abc"}, "CreateRoute"},
		{[]string{"aws", "ec2", "create-network-acl-entry", "--network-acl-id", "acl-0abc", "--ingress", "--rule-number", "90",
			"--protocol", "tcp", "--port-range", "From=1024,To=65535", "--cidr-block", "0.0.0.0/0", "--rule-action", "allow"}, "CreateNetworkAclEntry"},
		{[]string{"aws", "ec2", "modify-subnet-attribute", "--subnet-id", "subnet-0abc", "--no-map-public-ip-on-launch"}, "ModifySubnetAttribute"},
	}
	for _, tc := range good {
		op, err := a.Verify(tc.argv)
		if err != nil || op != tc.op {
			t.Errorf("%q: got %q, %v; want %s accepted", tc.argv, op, err, tc.op)
		}
	}
	bad := []struct {
		argv []string
		want string
	}{
		{[]string{"aws", "ec2", "create-vpc-endpoint", "--vpc", "vpc-0abc", "--service-name", "x"}, "made no call"},
		{[]string{"aws", "ec2", "create-vpc-endpoints", "--vpc-id", "vpc-0abc"}, "made no call"},
		{[]string{"aws", "ec2", "authorize-security-group-egress", "--group-id", "sg-0abc", "--ip-permissions", `[{"Protocol":"-1"}]`}, "made no call"},
		{[]string{"aws", "ec2", "describe-instances", "--query", "Reservations[.x"}, "made no call"},
		{[]string{"aws", "eks", "update-addon", "--cluster-name", "demo"}, "made no call"},
		{[]string{"kubectl", "get", "nodes"}, "not an aws"},
	}
	for _, tc := range bad {
		if _, err := a.Verify(tc.argv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error saying %q", tc.argv, err, tc.want)
		}
	}
	t.Logf("%d commands in %s", len(good)+len(bad), time.Since(start).Round(time.Millisecond))
}

func TestUriTemplate(t *testing.T) {
	re := uriTemplate("/clusters/{name}/addons/{addonName}/update")
	if !re.MatchString("/clusters/demo/addons/vpc-cni/update") || re.MatchString("/clusters/demo/addons/vpc-cni") {
		t.Errorf("%s", re)
	}
	if !uriTemplate("/{Bucket}/{Key+}?x-id=GetObject").MatchString("/b/a/b/c") {
		t.Error("greedy label")
	}
}
