package diagnose

import "github.com/karpnet/kubectl-karpnet/internal/testkit/fixture"

// The way-out fixtures (internal/testkit/fixture), shared with pkg/diagnose/wayout's tests.
const (
	vpcA             = fixture.VPCA
	tableMain        = fixture.TableMain
	natA             = fixture.NATA
	aclA             = fixture.ACLA
	subnetPublic     = fixture.SubnetPublic
	tablePublic      = fixture.TablePublic
	igwA             = fixture.IGWA
	natRegionalID    = fixture.NATRegionalID
	tableNATRegional = fixture.TableNATRegional
	natNote          = fixture.NATNote
)

var (
	withNATPath         = fixture.WithNATPath
	natOnMainTable      = fixture.NATOnMainTable
	natPublicRoute      = fixture.NATPublicRoute
	withoutDefaultRoute = fixture.WithoutDefaultRoute
	withEndpoints       = fixture.WithEndpoints
	defaultRoute        = fixture.DefaultRoute
	withRegionalNAT     = fixture.WithRegionalNAT
	regionalNATRoute    = fixture.RegionalNATRoute
	regionalNATZones    = fixture.RegionalNATZones
	withPrivateNAT      = fixture.WithPrivateNAT
	natSubnetOwnACL     = fixture.NATSubnetOwnACL
	natSubnetHardened   = fixture.NATSubnetHardened
)
