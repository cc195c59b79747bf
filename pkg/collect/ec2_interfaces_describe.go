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
// (GetSubnetCidrReservations takes one SubnetId), following NextToken under the page rules of
// the Describe calls of IDs: it stops with an *ec2PagingError after ec2SparePages pages in a
// row that bring no reservation not seen before, at a token seen before, or at ec2MaxPages.
// Every page past the first is also drawn from spare, the follow-up pages the reads of every
// subnet share in one collection; when none is left and a NextToken comes back, the call
// stops with an *ec2ReservationPagesError. Reservations of another subnet, which EC2 never
// answers, are left out.
func (c ec2Call) cidrReservations(ctx context.Context, subnet string, spare *ec2SpareReservationPages) ([]types.SubnetCidrReservation, error) {
	var out []types.SubnetCidrReservation
	seen := map[string]bool{}
	tokens := map[string]bool{}
	var token *string
	idle := 0
	for pages := 1; ; pages++ {
		if pages > 1 && !spare.take() {
			return nil, &ec2ReservationPagesError{subnet: subnet, pages: pages - 1}
		}
		page, err := c.api.GetSubnetCidrReservations(ctx, &ec2.GetSubnetCidrReservationsInput{
			SubnetId: aws.String(subnet), MaxResults: aws.Int32(ec2PageSize), NextToken: token,
		}, c.opt)
		if err != nil {
			return nil, err
		}
		if n := len(page.SubnetIpv4CidrReservations) + len(page.SubnetIpv6CidrReservations); n > ec2PageSize {
			return nil, &ec2TooManyError{action: "GetSubnetCidrReservations", got: n}
		}
		fresh := 0
		for _, set := range [][]types.SubnetCidrReservation{page.SubnetIpv4CidrReservations, page.SubnetIpv6CidrReservations} {
			for _, r := range set {
				id := aws.ToString(r.SubnetCidrReservationId)
				if aws.ToString(r.SubnetId) != subnet || seen[id] {
					continue
				}
				seen[id] = true
				fresh++
				out = append(out, r)
			}
		}
		if fresh == 0 {
			idle++
		} else {
			idle = 0
		}
		next := page.NextToken
		switch {
		case next == nil || *next == "":
			return out, nil
		case tokens[*next]:
			return nil, &ec2PagingError{action: "GetSubnetCidrReservations", pages: pages, repeated: true}
		case idle >= ec2SparePages:
			return nil, &ec2PagingError{action: "GetSubnetCidrReservations", pages: pages, idle: true}
		case pages >= ec2MaxPages:
			return nil, &ec2PagingError{action: "GetSubnetCidrReservations", pages: pages}
		}
		tokens[*next] = true
		token = next
	}
}
