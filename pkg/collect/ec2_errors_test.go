package collect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

func TestEC2Classify(t *testing.T) {
	apiErr := func(code, msg string) error {
		return &smithy.OperationError{ServiceID: "EC2", OperationName: "DescribeSubnets",
			Err: &smithy.GenericAPIError{Code: code, Message: msg}}
	}
	tests := []struct {
		name string
		err  error
		want ec2Failure
	}{
		{"access denied", apiErr("AccessDenied", "User is not authorized. Encoded authorization failure message: abc"),
			ec2Failure{gap: snapshot.Gap{Source: snapshot.SourceDescribeSubnets,
				Reason: "AccessDenied: User is not authorized.", Remedy: "allow ec2:DescribeSubnets to the caller"}}},
		{"expired token", apiErr("ExpiredToken", "The security token included in the request is expired"),
			ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2,
				Reason: "ExpiredToken: The security token included in the request is expired",
				Remedy: "refresh or fix the AWS credentials (`aws sso login`, AWS_PROFILE or --profile)"}}},
		{"Region not enabled", apiErr("OptInRequired", "You are not subscribed to this service."),
			ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2,
				Reason: "OptInRequired: You are not subscribed to this service.",
				Remedy: `pass the cluster's Region with --region (Region "me-south-1" is not usable)`}}},
		{"other API error", apiErr("InternalError", "An internal error has occurred"),
			ec2Failure{gap: snapshot.Gap{Source: snapshot.SourceDescribeSubnets,
				Reason: "InternalError: An internal error has occurred",
				Remedy: "retry; if it persists, check --region and AWS_ENDPOINT_URL_EC2"}}},
		{"deadline", fmt.Errorf("operation error EC2: DescribeSubnets, %w", context.DeadlineExceeded),
			ec2Failure{gap: snapshot.Gap{Source: snapshot.SourceDescribeSubnets,
				Reason: "timeout: operation error EC2: DescribeSubnets, context deadline exceeded",
				Remedy: "retry, or check network access to the EC2 endpoint in me-south-1"}}},
		{"unreachable endpoint", fmt.Errorf("send: %w", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}),
			ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2,
				Reason: "cannot reach EC2: send: dial tcp: connection refused",
				Remedy: "check network access to EC2, --region and AWS_ENDPOINT_URL_EC2"}}},
		{"expired SSO session", errors.New("operation error EC2: DescribeSubnets, get identity: get credentials: " +
			"failed to refresh cached credentials, refresh cached SSO token failed"),
			ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2,
				Reason: "no AWS credentials: failed to refresh cached credentials, refresh cached SSO token failed",
				Remedy: "run `aws sso login` (with --profile when not the default) and retry"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ec2Classify(snapshot.SourceDescribeSubnets, "me-south-1", tt.err)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(ec2Failure{})); diff != "" {
				t.Errorf("failure (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEC2GapsCollapse(t *testing.T) {
	subnets := ec2Failure{gap: snapshot.Gap{Source: snapshot.SourceDescribeSubnets, Reason: "denied"}}
	whole := ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2, Reason: "no credentials"}}
	euSubnets := ec2Failure{region: "eu-south-2", gap: snapshot.Gap{Source: snapshot.SourceDescribeSubnets, Reason: "timeout"}}
	euWhole := ec2Failure{whole: true, region: "eu-south-2",
		gap: snapshot.Gap{Source: snapshot.SourceEC2, Reason: "AuthFailure: not validated", Remedy: "refresh the credentials"}}
	mainWhole := ec2Failure{whole: true, region: "us-west-2", gap: snapshot.Gap{Source: snapshot.SourceEC2, Reason: "cannot reach EC2"}}
	tests := []struct {
		name     string
		failures []ec2Failure
		want     []snapshot.Gap
	}{
		{"none", nil, nil},
		{"one per source", []ec2Failure{subnets, subnets}, []snapshot.Gap{subnets.gap}},
		{"whole wins", []ec2Failure{subnets, whole, whole}, []snapshot.Gap{whole.gap}},
		{"another Region's whole failure is its own gap", []ec2Failure{subnets, euSubnets, euWhole, euWhole},
			[]snapshot.Gap{{Source: snapshot.SourceEC2, Region: "eu-south-2", Reason: "AuthFailure: not validated",
				Remedy: "enable Region eu-south-2 for the account (EC2 answers AuthFailure in an opt-in Region until it is), " +
					"or check the providerIDs that name it; us-west-2 was read"}, subnets.gap}},
		{"the main Region's whole failure wins", []ec2Failure{euWhole, mainWhole, subnets}, []snapshot.Gap{mainWhole.gap}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ec2Gaps(tt.failures, "us-west-2")); diff != "" {
				t.Errorf("gaps (-want +got):\n%s", diff)
			}
		})
	}
}
