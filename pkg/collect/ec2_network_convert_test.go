package collect

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestEC2NATGatewayPublicIP(t *testing.T) {
	for _, tc := range []struct {
		name  string
		addrs []types.NatGatewayAddress
		want  string
	}{
		{name: "a private gateway has none", addrs: []types.NatGatewayAddress{{PrivateIp: aws.String("10.0.0.9")}}},
		{name: "the only address", addrs: []types.NatGatewayAddress{{PublicIp: aws.String("203.0.113.7")}},
			want: "203.0.113.7"},
		{name: "the primary address wins over the first", addrs: []types.NatGatewayAddress{
			{PublicIp: aws.String("198.51.100.2"), IsPrimary: aws.Bool(false)},
			{PublicIp: aws.String("203.0.113.7"), IsPrimary: aws.Bool(true)},
			{PublicIp: aws.String("198.51.100.3")},
		}, want: "203.0.113.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ec2NATGateway(types.NatGateway{NatGatewayId: aws.String("nat-1"), NatGatewayAddresses: tc.addrs})
			if got.PublicIP != tc.want {
				t.Errorf("PublicIP = %q, want %q", got.PublicIP, tc.want)
			}
		})
	}
}

func TestEC2NATGatewayRegional(t *testing.T) {
	got := ec2NATGateway(types.NatGateway{NatGatewayId: aws.String("nat-1"), VpcId: aws.String("vpc-1"),
		AvailabilityMode: types.AvailabilityModeRegional, RouteTableId: aws.String("rtb-nat"),
		AutoProvisionZones: types.AutoProvisionZonesStateDisabled, NatGatewayAddresses: []types.NatGatewayAddress{
			{PublicIp: aws.String("203.0.113.9"), AvailabilityZone: aws.String("us-west-2b"), AvailabilityZoneId: aws.String("usw2-az2")},
			{PublicIp: aws.String("203.0.113.7"), AvailabilityZone: aws.String("us-west-2a"), AvailabilityZoneId: aws.String("usw2-az1")},
			{PublicIp: aws.String("203.0.113.8"), AvailabilityZone: aws.String("us-west-2c"), AvailabilityZoneId: aws.String("usw2-az3"),
				Status: types.NatGatewayAddressStatusFailed},
		}})
	want := snapshot.NATGateway{ID: "nat-1", VpcID: "vpc-1", PublicIP: "203.0.113.9", AvailabilityMode: "regional",
		RouteTableID: "rtb-nat", AutoProvisionZones: "disabled", Zones: []string{"us-west-2a", "us-west-2b"},
		ZoneIDs: []string{"usw2-az1", "usw2-az2"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("regional NAT gateway (-want +got):\n%s", diff)
	}
}
