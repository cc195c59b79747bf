package collect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"

	"github.com/karpnet/kubectl-karpnet/internal/oneline"
	"github.com/karpnet/kubectl-karpnet/internal/sdkhttp"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2CredentialsRemedy is what to do when EC2 refuses or cannot be sent our credentials.
const ec2CredentialsRemedy = "configure AWS credentials: pass --profile or set AWS_PROFILE " +
	"(run `aws sso login` for an SSO profile)"

// ec2Failure is a failed EC2 source turned into a gap. whole is true when the failure covers
// every EC2 call in its Region (no or rejected credentials, unreachable endpoint, a Region not
// enabled), so one "ec2" gap replaces the per-call ones: for the whole run when the Region is
// the main one, else for that Region only. region is the Region of the call that failed.
type ec2Failure struct {
	gap    snapshot.Gap
	whole  bool
	region string
}

// ec2Classify turns the error of one EC2 call into a gap for source, naming the IAM action,
// flag or command that would fix it.
func ec2Classify(source, region string, err error) ec2Failure {
	// e.g. "ec2:DescribeSubnets", the IAM action of the same name; "ec2:DescribeInstances
	// (cluster tag)" is ec2:DescribeInstances.
	action, _, _ := strings.Cut(source, " (")
	if msg, ok := ec2CredentialsProblem(err); ok {
		remedy := ec2CredentialsRemedy
		if strings.Contains(strings.ToLower(msg), "sso") {
			remedy = "run `aws sso login` (with --profile when not the default) and retry"
		}
		return ec2Failure{whole: true, gap: snapshot.Gap{
			Source: snapshot.SourceEC2, Reason: "no AWS credentials: " + ec2Short(msg), Remedy: remedy,
		}}
	}
	var answer *sdkhttp.AnswerError
	if errors.As(err, &answer) {
		return ec2AnswerFailure(source, region, answer)
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		code := apiErr.ErrorCode()
		reason := code + ": " + ec2Short(apiErr.ErrorMessage())
		switch code {
		case "UnauthorizedOperation", "AccessDenied", "AccessDeniedException":
			return ec2Failure{gap: snapshot.Gap{Source: source, Reason: reason,
				Remedy: fmt.Sprintf("allow %s to the caller", action)}}
		case "AuthFailure", "InvalidClientTokenId", "UnrecognizedClientException", "ExpiredToken",
			"ExpiredTokenException", "RequestExpired", "SignatureDoesNotMatch", "InvalidAccessKeyId":
			return ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2, Reason: reason,
				Remedy: "refresh or fix the AWS credentials (`aws sso login`, AWS_PROFILE or --profile)"}}
		case "OptInRequired", "InvalidRegion":
			return ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2, Reason: reason,
				Remedy: fmt.Sprintf("pass the cluster's Region with --region (Region %q is not usable)", region)}}
		case "RequestLimitExceeded", "Throttling", "ThrottlingException":
			return ec2Failure{gap: snapshot.Gap{Source: source, Reason: reason,
				Remedy: "retry in a minute: EC2 is throttling this account's Describe calls, which Karpenter shares"}}
		}
		return ec2Failure{gap: snapshot.Gap{Source: source, Reason: reason,
			Remedy: "retry; if it persists, check --region and AWS_ENDPOINT_URL_EC2"}}
	}
	var paging *ec2PagingError
	if errors.As(err, &paging) {
		return ec2Failure{gap: snapshot.Gap{Source: source, Reason: paging.Error(),
			Remedy: "retry; if the pages still do not end, check AWS_ENDPOINT_URL_EC2 and any proxy between karpnet and " +
				"EC2 (karpnet stops there so as not to spend the Describe budget Karpenter shares)"}}
	}
	var spent *ec2ReservationPagesError
	if errors.As(err, &spent) {
		return ec2Failure{gap: snapshot.Gap{Source: source, Reason: spent.Error(),
			Remedy: "retry; if the pages still do not end, check AWS_ENDPOINT_URL_EC2 and any proxy between karpnet and " +
				"EC2 (karpnet stops there so as not to spend the Describe budget Karpenter shares)"}}
	}
	var many *ec2ReservationSubnetsError
	if errors.As(err, &many) {
		return ec2Failure{gap: snapshot.Gap{Source: source, Reason: many.Error(),
			Remedy: "the addresses reservations hold in the other subnets are not counted: list them with " +
				"`aws ec2 get-subnet-cidr-reservations --subnet-id SUBNET`"}}
	}
	var ours *ec2TimeoutError
	if errors.As(err, &ours) {
		// No answer within --request-timeout: EC2 is unreachable, so do not wait on the other calls.
		return ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2, Reason: ours.Error(),
			Remedy: fmt.Sprintf("check network access to the EC2 endpoint in %s (AWS_ENDPOINT_URL_EC2, proxies), "+
				"or raise --request-timeout", region)}}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || ec2IsTimeout(err) {
		return ec2Failure{gap: snapshot.Gap{Source: source, Reason: "timeout: " + ec2Short(err.Error()),
			Remedy: fmt.Sprintf("retry, or check network access to the EC2 endpoint in %s", region)}}
	}
	var netErr net.Error
	var opErr *net.OpError
	if errors.As(err, &netErr) || errors.As(err, &opErr) {
		return ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2,
			Reason: "cannot reach EC2: " + ec2Short(err.Error()),
			Remedy: "check network access to EC2, --region and AWS_ENDPOINT_URL_EC2"}}
	}
	return ec2Failure{gap: snapshot.Gap{Source: source, Reason: ec2Short(err.Error()),
		Remedy: "retry; if it persists, check --region, --profile and AWS_ENDPOINT_URL_EC2"}}
}

// ec2CredentialsProblem reports whether err is a failure to obtain credentials before the
// request was sent, and returns the credential provider's message. The SDK marks it as a
// SigningError or, in the smithy auth path, as "get identity: get credentials: ...".
func ec2CredentialsProblem(err error) (string, bool) {
	var signErr *v4.SigningError
	if errors.As(err, &signErr) {
		return signErr.Err.Error(), true
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return "", false
	}
	_, msg, ok := strings.Cut(err.Error(), "get identity: ")
	if !ok {
		return "", false
	}
	return strings.TrimPrefix(msg, "get credentials: "), true
}

func ec2IsTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// ec2Short keeps the first line of an error message, without an encoded authorization
// message, about 300 bytes, control characters escaped.
func ec2Short(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	msg, _, _ = strings.Cut(msg, " Encoded authorization failure message:")
	return oneline.Text(strings.TrimSpace(msg), 300)
}

// ec2Gaps turns failures into gaps: one "ec2" gap when a failure covers all of EC2 in the main
// Region (or in none in particular); else one "ec2" gap for each other Region where one does,
// which covers that Region's other failures, and one gap per source for the rest, in the order
// given.
func ec2Gaps(failures []ec2Failure, main string) []snapshot.Gap {
	down := map[string]bool{}
	var out []snapshot.Gap
	for _, f := range failures {
		if !f.whole {
			continue
		}
		if f.region == "" || f.region == main {
			return []snapshot.Gap{f.gap}
		}
		if !down[f.region] {
			down[f.region] = true
			g := f.gap
			g.Region = f.region
			if ec2RegionRefused(g.Reason) {
				// The credentials work in the main Region: this one is not enabled, or not the nodes'.
				g.Remedy = fmt.Sprintf("enable Region %s for the account (EC2 answers AuthFailure in an opt-in Region "+
					"until it is), or check the providerIDs that name it; %s was read", f.region, main)
			}
			out = append(out, g)
		}
	}
	seen := map[string]bool{}
	for _, f := range failures {
		if f.whole || down[f.region] || seen[f.gap.Source] {
			continue
		}
		seen[f.gap.Source] = true
		out = append(out, f.gap)
	}
	return out
}

// ec2RegionRefused reports whether a gap's reason is EC2 refusing the credentials or the
// Region itself.
func ec2RegionRefused(reason string) bool {
	for _, code := range []string{"AuthFailure", "OptInRequired", "InvalidRegion", "UnrecognizedClientException", "InvalidClientTokenId"} {
		if strings.HasPrefix(reason, code+":") {
			return true
		}
	}
	return false
}
