package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/karpnet/kubectl-karpnet/pkg/maxpods"
)

// MaxPodsArgs are the arguments of max-pods.
type MaxPodsArgs struct {
	Types            []string `json:"types" jsonschema:"EC2 instance types, e.g. m5.large (at most 50)"`
	PrefixDelegation bool     `json:"prefixDelegation,omitempty" jsonschema:"the VPC CNI runs with ENABLE_PREFIX_DELEGATION=true"`
	CustomNetworking bool     `json:"customNetworking,omitempty" jsonschema:"the VPC CNI runs with custom networking (one ENI fewer)"`
	PodENI           bool     `json:"podENI,omitempty" jsonschema:"the VPC CNI runs with ENABLE_POD_ENI=true (the trunk ENI takes one)"`
	ReservedENIs     int32    `json:"reservedENIs,omitempty" jsonschema:"Karpenter's RESERVED_ENIS setting"`
	EFAOnly          int32    `json:"efaOnly,omitempty" jsonschema:"efa-only interfaces on network card 0"`
	MaxAllowed       bool     `json:"maxAllowed,omitempty" jsonschema:"do not cap at 110 (250 above 30 vCPUs)"`
	Live             bool     `json:"live,omitempty" jsonschema:"ask EC2 (DescribeInstanceTypes) as well as karpnet's embedded table"`
}

// MaxPodsResult is max-pods' answer: one row per type.
type MaxPodsResult struct {
	Rows []maxpods.Row `json:"rows"`
}

func (t tools) maxPods(ctx context.Context, a MaxPodsArgs) (any, error) {
	switch {
	case len(a.Types) == 0:
		return nil, errors.New("types: name at least one instance type, e.g. m5.large")
	case len(a.Types) > maxTypes:
		return nil, fmt.Errorf("%d instance types: ask for at most %d at a time", len(a.Types), maxTypes)
	case a.ReservedENIs < 0 || a.EFAOnly < 0:
		return nil, errors.New("reservedENIs and efaOnly cannot be negative: pass 0 or more")
	}
	rows, err := t.src.MaxPods(ctx, a.Types, maxpods.Options{PrefixDelegation: a.PrefixDelegation, CustomNetworking: a.CustomNetworking,
		PodENI: a.PodENI, ReservedENIs: a.ReservedENIs, EFAOnly: a.EFAOnly, MaxAllowed: a.MaxAllowed}, a.Live)
	if err != nil {
		return nil, err
	}
	return MaxPodsResult{Rows: rows}, nil
}
