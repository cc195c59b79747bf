package collect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go/logging"

	"github.com/karpnet/kubectl-karpnet/internal/sdkhttp"
)

// Retry policy of the EC2 client: the SDK's standard retryer (exponential backoff with jitter,
// throttling errors such as RequestLimitExceeded included), capped so an incident-time run
// gives up within seconds rather than minutes.
const (
	ec2MaxAttempts = 5
	ec2MaxBackoff  = 5 * time.Second
)

// LoadEC2 builds an EC2 client from the standard AWS configuration chain (environment,
// AWS_PROFILE, shared config and credentials files, SSO, web identity, container and instance
// roles, AWS_ENDPOINT_URL_EC2, AWS_CA_BUNDLE). A non-empty region or profile overrides the
// configured one. Credentials are resolved lazily: missing ones show up as a gap when EC2 is
// first called, not here. A profile that does not exist is an error that says what to do.
// Request bodies are sent read-only (sdkhttp.ReadOnlyBodies), so a fast endpoint costs no
// retried call.
//
// The SDK's own log lines (such as "WARN falling back to IMDSv1") are dropped unless
// WithSDKLog says where they go: they never reach standard error on their own.
func LoadEC2(ctx context.Context, region, profile string, options ...EC2Option) (EC2API, error) {
	var set ec2Settings
	for _, o := range options {
		o(&set)
	}
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer {
			return retry.AddWithMaxBackoffDelay(
				retry.AddWithMaxAttempts(retry.NewStandard(), ec2MaxAttempts), ec2MaxBackoff)
		}),
		config.WithLogger(set.logger()),
	}
	if set.log != nil && set.retries {
		opts = append(opts, config.WithClientLogMode(aws.LogRetries))
	}
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	if profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, ec2ConfigError(err, profile)
	}
	// Wrapping after loading keeps the transport the configuration built (AWS_CA_BUNDLE).
	return ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.HTTPClient = sdkhttp.ReadOnlyBodies(o.HTTPClient) }), nil
}

// EC2Option changes how LoadEC2 builds the EC2 client.
type EC2Option func(*ec2Settings)

// ec2Settings are what the EC2Options chose.
type ec2Settings struct {
	log     io.Writer
	retries bool
}

// WithSDKLog sends the AWS SDK's own log lines to w, one a line, prefixed "aws-sdk: " and
// their level; with retries, the SDK also logs every request it retries. A nil w drops them.
func WithSDKLog(w io.Writer, retries bool) EC2Option {
	return func(s *ec2Settings) { s.log, s.retries = w, retries }
}

// logger is the SDK logger of s: w's lines, or none.
func (s ec2Settings) logger() logging.Logger {
	if s.log == nil {
		return logging.Nop{}
	}
	return &sdkLogger{w: s.log}
}

// sdkLogger writes the SDK's log lines to w, each on one line of its own, one at a time: the
// SDK logs from the goroutines of concurrent requests.
type sdkLogger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *sdkLogger) Logf(level logging.Classification, format string, v ...any) {
	msg := strings.Join(strings.Fields(fmt.Sprintf(format, v...)), " ")
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "aws-sdk: %s %s\n", level, msg)
}

// ec2ConfigError explains an AWS configuration failure and what to do about it.
func ec2ConfigError(err error, profile string) error {
	var notExist config.SharedConfigProfileNotExistError
	if errors.As(err, &notExist) {
		where := "~/.aws/config"
		if len(notExist.Filename) > 0 {
			where = strings.Join(notExist.Filename, ", ")
		} else if f := os.Getenv("AWS_CONFIG_FILE"); f != "" {
			where = f
		}
		flag := "pass an existing --profile or unset AWS_PROFILE"
		if profile != "" {
			flag = "pass an existing --profile"
		}
		return fmt.Errorf("AWS profile %q not found in %s: %s", notExist.Profile, where, flag)
	}
	return fmt.Errorf("loading AWS configuration: %w: check AWS_PROFILE, --profile and ~/.aws/config", err)
}

// ProfileAccount returns the AWS account a profile's credentials belong to when the shared
// configuration says so without a request: the account of its role_arn, else its
// sso_account_id; for the default chain ("") the account of AWS_ROLE_ARN (web identity,
// IRSA), else the AWS_PROFILE or default profile's. "" when none says.
func ProfileAccount(ctx context.Context, profile string) string {
	if profile == "" {
		if a := AccountOfARN(os.Getenv("AWS_ROLE_ARN")); a != "" {
			return a
		}
		profile = cmp.Or(os.Getenv("AWS_PROFILE"), os.Getenv("AWS_DEFAULT_PROFILE"), "default")
	}
	sc, err := config.LoadSharedConfigProfile(ctx, profile, func(o *config.LoadSharedConfigOptions) {
		o.Logger = logging.Nop{}
		// As the rest of the configuration chain reads them.
		if f := os.Getenv("AWS_CONFIG_FILE"); f != "" {
			o.ConfigFiles = []string{f}
		}
		if f := os.Getenv("AWS_SHARED_CREDENTIALS_FILE"); f != "" {
			o.CredentialsFiles = []string{f}
		}
	})
	if err != nil {
		return ""
	}
	if a := AccountOfARN(sc.RoleARN); a != "" {
		return a
	}
	if len(sc.SSOAccountID) == 12 {
		return sc.SSOAccountID
	}
	return ""
}
