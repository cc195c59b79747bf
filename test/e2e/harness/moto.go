package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

const (
	// motoVersion is the moto release the launcher's patches are written for.
	motoVersion = "5.2.1"
	// motoStartTimeout bounds how long the launcher has to import moto and answer.
	motoStartTimeout = 60 * time.Second
	// motoAccessKey and motoSecretKey are the static credentials every client uses; moto
	// accepts any.
	motoAccessKey = "karpnet-test"
	motoSecretKey = "karpnet-test"
)

// Moto is a running moto server, the AWS emulator, extended by test/e2e/moto with the EC2
// networking karpnet reads (interface types, network cards, prefixes, placement groups) and
// with endpoints to inject errors and count requests.
type Moto struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL string
	// Dir holds the server's log, moto.log.
	Dir string

	proc *proc
	http *http.Client
}

// StartMoto starts the launcher (test/e2e/moto/karpnet_moto.py) with the python3 found in
// PATH, on a free 127.0.0.1 port, in its own process group, logging to dir/moto.log, and waits
// until it answers. A missing python3, a missing moto or another moto version than 5.2.1 is an
// error carrying the launcher's message. The server stops with Close or when ctx ends.
func StartMoto(ctx context.Context, dir string) (*Moto, error) {
	python, err := exec.LookPath("python3")
	if err != nil {
		return nil, fmt.Errorf("finding python3: %w: install Python 3.11 or newer with "+
			"`python3 -m pip install 'moto[server]==%s'`", err, motoVersion)
	}
	launcher, err := motoLauncher()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the moto directory: %w", err)
	}
	urlFile := filepath.Join(dir, "moto.url")
	if err := os.Remove(urlFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("removing the old moto address file: %w", err)
	}
	env := []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1"}
	p, err := startProc(ctx, "moto", filepath.Join(dir, "moto.log"), env,
		python, launcher, "--host", "127.0.0.1", "--port", "0", "--ready-file", urlFile)
	if err != nil {
		return nil, err
	}
	m := &Moto{Dir: dir, proc: p, http: &http.Client{Timeout: 30 * time.Second}}
	err = p.waitReady(ctx, motoStartTimeout, func(ctx context.Context) error {
		data, err := os.ReadFile(urlFile)
		if err != nil {
			return fmt.Errorf("no address yet: %w", err)
		}
		m.URL = strings.TrimSpace(string(data))
		_, err = m.Requests(ctx)
		return err
	})
	if err != nil {
		return nil, errors.Join(err, p.stop())
	}
	return m, nil
}

// motoLauncher returns the path of karpnet_moto.py, found next to this package's source.
func motoLauncher() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("locating the moto launcher: no caller information: run the tests from a checkout")
	}
	path := filepath.Join(filepath.Dir(file), "..", "moto", "karpnet_moto.py")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("locating the moto launcher: %w: run the tests from a checkout", err)
	}
	return path, nil
}

// Close stops the server's whole process group and waits for it. Calling it again does nothing.
func (m *Moto) Close() error {
	return m.proc.stop()
}

// Reset forgets every resource (moto's POST /moto-api/reset), every injected fault and every
// request count.
func (m *Moto) Reset(ctx context.Context) error {
	for _, call := range []struct{ method, path string }{
		{http.MethodPost, "/moto-api/reset"},
		{http.MethodDelete, "/_karpnet/faults"},
		{http.MethodDelete, "/_karpnet/requests"},
	} {
		if _, err := m.call(ctx, call.method, call.path, nil); err != nil {
			return fmt.Errorf("resetting moto: %w", err)
		}
	}
	return nil
}

// Fail makes requests for action (for example "DescribeSubnets", or "*" for every action)
// answer EC2's error with code and HTTP status: the next count requests, every request when
// count is -1, none any more when count is 0. A status of 0 means EC2's usual status for code.
func (m *Moto) Fail(ctx context.Context, action, code string, status, count int) error {
	spec := map[string]any{"action": action, "code": code, "count": count}
	if status != 0 {
		spec["status"] = status
	}
	body, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("encoding the %s fault: %w", action, err)
	}
	if _, err := m.call(ctx, http.MethodPost, "/_karpnet/faults", body); err != nil {
		return fmt.Errorf("setting the %s fault: %w", action, err)
	}
	return nil
}

// Requests returns how many requests moto received per action since it started or was last
// reset, failed ones included.
func (m *Moto) Requests(ctx context.Context) (map[string]int, error) {
	body, err := m.call(ctx, http.MethodGet, "/_karpnet/requests", nil)
	if err != nil {
		return nil, fmt.Errorf("reading moto's request counts: %w", err)
	}
	counts := map[string]int{}
	if err := json.Unmarshal(body, &counts); err != nil {
		return nil, fmt.Errorf("decoding moto's request counts: %w", err)
	}
	return counts, nil
}

// ResetRequests sets every request count back to zero (per action, per caller and in flight),
// keeping the resources.
func (m *Moto) ResetRequests(ctx context.Context) error {
	if _, err := m.call(ctx, http.MethodDelete, "/_karpnet/requests", nil); err != nil {
		return fmt.Errorf("resetting moto's request counts: %w", err)
	}
	return nil
}

// Callers returns how many requests moto received per access key ID (of the request's SigV4
// credential) and action since the counts were last reset.
func (m *Moto) Callers(ctx context.Context) (map[string]map[string]int, error) {
	body, err := m.call(ctx, http.MethodGet, "/_karpnet/callers", nil)
	if err != nil {
		return nil, fmt.Errorf("reading moto's request counts per caller: %w", err)
	}
	out := map[string]map[string]int{}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("decoding moto's request counts per caller: %w", err)
	}
	return out, nil
}

// MaxInFlight returns the most AWS requests moto answered at once since the counts were last
// reset.
func (m *Moto) MaxInFlight(ctx context.Context) (int, error) {
	body, err := m.call(ctx, http.MethodGet, "/_karpnet/inflight", nil)
	if err != nil {
		return 0, fmt.Errorf("reading moto's in-flight count: %w", err)
	}
	var v struct {
		Max int `json:"max"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return 0, fmt.Errorf("decoding moto's in-flight count: %w", err)
	}
	return v.Max, nil
}

// EC2 returns a real EC2 client for region that talks to moto with static test credentials
// and the SDK's standard retryer. It reads no AWS configuration from the environment, so ctx
// is not needed to build it. Each request goes on a connection of its own: under load, the
// answer to a write sent on a connection kept from the request before was lost to the
// connection closing while it was read ("use of closed network connection"), and the SDK's
// retry of a write moto had carried out then failed as a duplicate (CreateSubnet,
// AttachInternetGateway).
func (m *Moto) EC2(_ context.Context, region string) *ec2.Client {
	return ec2.New(ec2.Options{
		Region:       region,
		BaseEndpoint: aws.String(m.URL),
		Credentials:  credentials.NewStaticCredentialsProvider(motoAccessKey, motoSecretKey, ""),
		Retryer:      saidRetryer{retry.NewStandard()},
		HTTPClient: awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.DisableKeepAlives = true
		}),
	})
}

// saidRetryer is the SDK's retryer, saying on standard error why it retries: a retried
// request that moto had carried out answers as a duplicate (InvalidGroup.Duplicate,
// RouteAlreadyExists), and the line before it tells why.
type saidRetryer struct{ aws.Retryer }

func (r saidRetryer) IsErrorRetryable(err error) bool {
	retryable := r.Retryer.IsErrorRetryable(err)
	if retryable {
		fmt.Fprintf(os.Stderr, "harness: the AWS SDK retries a request to moto after: %v\n", err)
	}
	return retryable
}

// Env returns the environment that points an AWS SDK process (the plugin) at moto in region
// and isolates it from the machine's AWS configuration: static test credentials, no profile,
// empty config and credentials files, and no instance metadata lookups. Append it after the
// inherited environment so it wins.
func (m *Moto) Env(region string) []string {
	return []string{
		"AWS_ENDPOINT_URL_EC2=" + m.URL,
		"AWS_ACCESS_KEY_ID=" + motoAccessKey,
		"AWS_SECRET_ACCESS_KEY=" + motoSecretKey,
		"AWS_SESSION_TOKEN=",
		"AWS_REGION=" + region,
		"AWS_DEFAULT_REGION=" + region,
		"AWS_PROFILE=",
		"AWS_DEFAULT_PROFILE=",
		"AWS_ROLE_ARN=",
		"AWS_WEB_IDENTITY_TOKEN_FILE=",
		"AWS_CONFIG_FILE=" + os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// call sends one request to moto and returns the body of a 2xx answer.
func (m *Moto) call(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, m.URL+path, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := m.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the answer to %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(data)))
	}
	return data, nil
}
