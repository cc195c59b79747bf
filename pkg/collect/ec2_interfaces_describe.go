package collect

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// interfacesWhere describes the network interfaces filters select, following NextToken for at
// most maxPages pages, and hands each page's interfaces to keep, so that a large read holds
// one page of the SDK's values at a time; an error from keep ends the call.
func (c ec2Call) interfacesWhere(ctx context.Context, filters []types.Filter, maxPages int, keep func([]types.NetworkInterface) error) error {
	return ec2PagesUpTo("DescribeNetworkInterfaces", maxPages, func(token *string) (*string, error) {
		page, err := c.api.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{
			Filters: filters, MaxResults: aws.Int32(ec2PageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		if err := keep(page.NetworkInterfaces); err != nil {
			return nil, err
		}
		return page.NextToken, nil
	})
}

// cidrReservations returns the IPv4 and IPv6 CIDR reservations of one subnet
// (GetSubnetCidrReservations takes one SubnetId), following NextToken. Reservations of
// another subnet, which EC2 never answers, are left out.
func (c ec2Call) cidrReservations(ctx context.Context, subnet string) ([]types.SubnetCidrReservation, error) {
	var out []types.SubnetCidrReservation
	err := ec2Pages("GetSubnetCidrReservations", func(token *string) (*string, error) {
		page, err := c.api.GetSubnetCidrReservations(ctx, &ec2.GetSubnetCidrReservationsInput{
			SubnetId: aws.String(subnet), MaxResults: aws.Int32(ec2PageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		for _, set := range [][]types.SubnetCidrReservation{page.SubnetIpv4CidrReservations, page.SubnetIpv6CidrReservations} {
			for _, r := range set {
				if aws.ToString(r.SubnetId) == subnet {
					out = append(out, r)
				}
			}
		}
		return page.NextToken, nil
	})
	return out, err
}
