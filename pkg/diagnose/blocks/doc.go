// Package blocks holds the subnet block map: a subnet's IPv4 CIDR cut into aligned /28 blocks,
// with what holds each. EC2 carves an IPv4 prefix for prefix delegation (or an ipPrefixCount)
// from an aligned /28 block of the subnet none of whose addresses is in use, outside the five
// addresses AWS reserves and outside explicit CIDR reservations; a prefix reservation keeps its
// blocks for prefixes (EC2 User Guide, "Assign prefixes to network interfaces"; VPC User Guide,
// "Subnet CIDR reservations"). A subnet can so have hundreds of free addresses and no free block.
//
// It reads only pkg/snapshot: the instances' interfaces, the interfaces read on their own, the
// subnets read in full (AddressSubnets) and the CIDR reservations. pkg/diagnose keeps one Index
// per analysis; its prefix and fragmentation checks and the report's subnets read the maps, and
// pkg/sheet draws them on the subnet sheet.
package blocks
