package collect

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
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
