package diagnose

import "github.com/karpnet/kubectl-karpnet/pkg/diagnose/view"

// The sections of a NodeReport (pkg/diagnose/view), named here for the code that builds and
// reads them.
type (
	Lifecycle           = view.Lifecycle
	Platform            = view.Platform
	Identity            = view.Identity
	AddressReport       = view.AddressReport
	SubnetReport        = view.SubnetReport
	SecurityGroups      = view.SecurityGroups
	SecurityGroupReport = view.SecurityGroupReport
	ENIReport           = view.ENIReport
	CapacityReport      = view.CapacityReport
	CiliumReport        = view.CiliumReport
	CiliumENIReport     = view.CiliumENIReport
	EFAReport           = view.EFAReport
	PlacementReport     = view.PlacementReport
	AutoModeReport      = view.AutoModeReport
)
