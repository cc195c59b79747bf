package ec2sim

import (
	"io"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
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
		o.HTTPClient = readOnlyBodies{next: awshttp.NewBuildableClient()}
	}}, optFns...)...)
}

// readOnlyBodies hides io.WriterTo of request bodies. On loopback the server can answer
// before the transport's write loop has finished with the body; the SDK then closes the
// body, and its WriteTo answers io.EOF, which makes net/http close the connection while the
// answer is being read ("use of closed network connection", retried by the SDK). With Read
// only, a closed body just ends, so request counts in tests stay exact.
type readOnlyBodies struct {
	next interface {
		Do(*http.Request) (*http.Response, error)
	}
}

type readOnlyBody struct{ io.ReadCloser }

// Do sends r with its body reduced to Read and Close.
func (c readOnlyBodies) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = readOnlyBody{r.Body}
	}
	return c.next.Do(r)
}
