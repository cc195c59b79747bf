package ec2sim

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/internal/sdkhttp"
)

// ClientMaxAttempts is how many attempts NewClient's retryer makes for one call.
const ClientMaxAttempts = 5

// NewClient returns a real EC2 client that talks to the server at url with static
// credentials. region may be empty to build a client without a Region (calls then need a
// per-call Region). Its standard retryer makes ClientMaxAttempts attempts with a 1ms backoff
// and no retry quota, so tests of throttling stay fast and deterministic.
func NewClient(url, region string, optFns ...func(*ec2.Options)) *ec2.Client {
	cfg := aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = ClientMaxAttempts
				o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) {
					return time.Millisecond, nil
				})
				o.RateLimiter = ratelimit.None
			})
		},
	}
	return ec2.NewFromConfig(cfg, append([]func(*ec2.Options){func(o *ec2.Options) {
		o.BaseEndpoint = aws.String(url)
		o.HTTPClient = sdkhttp.ReadOnlyBodies(awshttp.NewBuildableClient())
	}}, optFns...)...)
}
