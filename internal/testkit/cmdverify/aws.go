package cmdverify

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// awsDriver is the Python program that runs AWS CLI commands, one JSON argument vector a line
// on stdin, through awscli's own driver (its argument parser, botocore's parameter validation
// and request signing) and answers one JSON line each: the exit code, what the CLI wrote to
// stderr and the operations botocore called, each with its HTTP method and request URI.
//
//go:embed awsdriver.py
var awsDriver string

// restXMLPath matches the paths of the REST-XML services a command may call, which begin with
// their API version (Route 53: /2013-04-01/...), to answer them in their own error format.
var restXMLPath = regexp.MustCompile(`^/\d{4}-\d{2}-\d{2}/`)

// RefusalCode is the error code the local endpoint answers every AWS call with.
const RefusalCode = "KarpnetVerifierRefused"

// AWS runs AWS CLI commands against a local endpoint that refuses every call and records
// what reached it. One Python process runs them all (starting `aws` takes half a second).
type AWS struct {
	// Python is the interpreter that imports awscli.
	Python string
	// Version is the CLI's own version line.
	Version string

	srv  *httptest.Server
	mu   sync.Mutex
	reqs []Request

	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// Request is a call that reached the refusing endpoint.
type Request struct {
	Method, Path string
	// Action is the EC2 query protocol's Action parameter; Target the X-Amz-Target header of
	// the JSON protocols; both "" for REST protocols, which name the operation by the path.
	Action, Target string
}

// awsResult is the driver's answer for one command.
type awsResult struct {
	RC     int    `json:"rc"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Calls  []struct {
		Op, Method, URI, Protocol string
	} `json:"calls"`
}

// FindAWSCLI returns a Python interpreter that imports awscli (the AWS CLI v1, which is a
// Python package): python3 on PATH, else the interpreter of the `aws` script on PATH. When
// neither has it and install is true, it installs awscli with pip for python3 and looks again.
// The error says what is missing and how to get it.
func FindAWSCLI(ctx context.Context, install bool) (string, error) {
	if py, err := findAWSPython(ctx); err == nil {
		return py, nil
	}
	if !install {
		return "", errors.New("no Python interpreter imports awscli: install the AWS CLI v1 (python3 -m pip install awscli)")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		return "", errors.New("the AWS CLI is not installed and python3 is not on PATH to install it with pip")
	}
	out, err := exec.CommandContext(ctx, py, "-m", "pip", "install", "--quiet", "awscli<2").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("installing the AWS CLI (python3 -m pip install awscli): %w\n%s", err, out)
	}
	return findAWSPython(ctx)
}

func findAWSPython(ctx context.Context) (string, error) {
	var candidates []string
	if py, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, py)
	}
	// The interpreter on the first line of the aws script (pip's entry point or aws-cli v1's
	// own bin/aws); under pyenv, the shim names the version that has it.
	if aws, err := exec.LookPath("aws"); err == nil {
		if out, err := exec.CommandContext(ctx, "pyenv", "which", "aws").Output(); err == nil {
			aws = strings.TrimSpace(string(out))
		}
		if b, err := os.ReadFile(aws); err == nil {
			if line, _, _ := strings.Cut(string(b), "\n"); strings.HasPrefix(line, "#!") {
				if f := strings.Fields(strings.TrimPrefix(line, "#!")); len(f) > 0 && strings.Contains(f[0], "python") {
					candidates = append(candidates, f[0])
				}
			}
		}
	}
	for _, py := range candidates {
		if err := exec.CommandContext(ctx, py, "-c", "import awscli.clidriver").Run(); err == nil {
			return py, nil
		}
	}
	return "", fmt.Errorf("none of %v imports awscli", candidates)
}

// StartAWS starts the refusing endpoint and the driver under python, with its files in dir.
// The CLI sees no configuration or credentials of the machine: fake keys, Region us-west-2,
// one attempt per call, no instance metadata.
func StartAWS(ctx context.Context, python, dir string) (*AWS, error) {
	a := &AWS{Python: python}
	a.srv = httptest.NewServer(http.HandlerFunc(a.refuse))
	script := filepath.Join(dir, "awsdriver.py")
	if err := os.WriteFile(script, []byte(awsDriver), 0o644); err != nil {
		a.srv.Close()
		return nil, err
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		a.srv.Close()
		return nil, err
	}
	a.cmd = exec.CommandContext(ctx, python, script)
	a.cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8",
		"AWS_CONFIG_FILE=" + filepath.Join(dir, "no-config"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "no-credentials"),
		"AWS_ACCESS_KEY_ID=AKIAKARPNETVERIFIER1", "AWS_SECRET_ACCESS_KEY=karpnet-verifier-secret",
		"AWS_DEFAULT_REGION=us-west-2", "AWS_MAX_ATTEMPTS=1", "AWS_RETRY_MODE=standard",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PAGER=",
	}
	var err error
	if a.in, err = a.cmd.StdinPipe(); err != nil {
		a.srv.Close()
		return nil, err
	}
	stdout, err := a.cmd.StdoutPipe()
	if err != nil {
		a.srv.Close()
		return nil, err
	}
	a.out = bufio.NewReader(stdout)
	a.cmd.Stderr = os.Stderr
	if err := a.cmd.Start(); err != nil {
		a.srv.Close()
		return nil, fmt.Errorf("starting the AWS CLI driver: %w", err)
	}
	res, err := a.run([]string{"--version"})
	if err != nil {
		a.Close()
		return nil, err
	}
	a.Version = strings.TrimSpace(res.Stdout + res.Stderr)
	return a, nil
}

// Close stops the driver and the endpoint.
func (a *AWS) Close() {
	if a.in != nil {
		a.in.Close()
	}
	if a.cmd != nil && a.cmd.Process != nil {
		a.cmd.Wait()
	}
	a.srv.Close()
}

// refuse records a call and answers it with an AWS-shaped error: an EC2 query protocol
// <Response><Errors> body for a form with an Action, a JSON error with x-amzn-ErrorType
// otherwise. Both are 400s, which the CLI does not retry.
func (a *AWS) refuse(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Target: r.Header.Get("X-Amz-Target")}
	if form, err := url.ParseQuery(string(body)); err == nil {
		req.Action = form.Get("Action")
	}
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	const message = "refused by karpnet's command verifier"
	if req.Action != "" {
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "<Response><Errors><Error><Code>%s</Code><Message>%s</Message></Error></Errors><RequestID>0</RequestID></Response>",
			RefusalCode, message)
		return
	}
	if req.Target == "" && restXMLPath.MatchString(req.Path) {
		// A REST-XML service (Route 53's paths start with its API version, /2013-04-01/).
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "<ErrorResponse><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>0</RequestId></ErrorResponse>",
			RefusalCode, message)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-amzn-ErrorType", RefusalCode)
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprintf(w, `{"__type":%q,"message":%q}`, RefusalCode, message)
}

// run sends args (without the program) to the driver and reads its answer.
func (a *AWS) run(args []string) (awsResult, error) {
	var res awsResult
	b, _ := json.Marshal(args)
	if _, err := fmt.Fprintf(a.in, "%s\n", b); err != nil {
		return res, fmt.Errorf("writing to the AWS CLI driver: %w", err)
	}
	line, err := a.out.ReadBytes('\n')
	if err != nil {
		return res, fmt.Errorf("reading the AWS CLI driver's answer: %w", err)
	}
	if err := json.Unmarshal(line, &res); err != nil {
		return res, fmt.Errorf("decoding the AWS CLI driver's answer %q: %w", line, err)
	}
	return res, nil
}

// Operation is the operation an `aws SERVICE SUBCOMMAND` command names, as botocore spells
// it: each hyphenated word capitalized ("create-vpc-endpoint" is CreateVpcEndpoint).
func Operation(subcommand string) string {
	var b strings.Builder
	for _, w := range strings.Split(subcommand, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// Verify runs an aws command (argv with its program) through the CLI against the refusing
// endpoint and returns the operation that reached it. It fails unless the CLI parsed the
// command, botocore validated its parameters and called exactly the operation the command
// names, and that call reached the endpoint as that operation (the Action of the EC2 query
// protocol, the X-Amz-Target of the JSON protocols, the method and path of REST ones), where
// it was refused.
func (a *AWS) Verify(argv []string) (string, error) {
	if len(argv) < 3 || argv[0] != "aws" {
		return "", fmt.Errorf("not an aws SERVICE OPERATION command: %q", argv)
	}
	want := Operation(argv[2])
	a.mu.Lock()
	a.reqs = nil
	a.mu.Unlock()
	res, err := a.run(append(append([]string(nil), argv[1:]...), "--endpoint-url", a.srv.URL))
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	reqs := append([]Request(nil), a.reqs...)
	a.mu.Unlock()
	stderr := strings.TrimSpace(res.Stderr)
	if len(res.Calls) == 0 {
		return "", fmt.Errorf("the AWS CLI made no call (exit %d): %s", res.RC, lastLines(stderr, 4))
	}
	if len(res.Calls) != 1 || !strings.EqualFold(res.Calls[0].Op, want) {
		return "", fmt.Errorf("the AWS CLI called %v, want %s once", res.Calls, want)
	}
	call := res.Calls[0]
	if len(reqs) != 1 {
		return "", fmt.Errorf("%s: %d requests reached the endpoint, want 1 (exit %d): %s", want, len(reqs), res.RC, lastLines(stderr, 4))
	}
	req := reqs[0]
	switch call.Protocol {
	case "ec2", "query":
		if req.Action != call.Op {
			return "", fmt.Errorf("the endpoint got Action=%q, want %s", req.Action, call.Op)
		}
	case "json":
		if !strings.HasSuffix(req.Target, "."+call.Op) {
			return "", fmt.Errorf("the endpoint got X-Amz-Target %q, want one ending .%s", req.Target, call.Op)
		}
	default:
		if req.Method != call.Method || !uriTemplate(call.URI).MatchString(req.Path) {
			return "", fmt.Errorf("the endpoint got %s %s, want %s %s", req.Method, req.Path, call.Method, call.URI)
		}
	}
	if !strings.Contains(stderr, "("+RefusalCode+")") {
		return "", fmt.Errorf("%s reached the endpoint but the CLI did not report its refusal (exit %d): %s", want, res.RC, lastLines(stderr, 4))
	}
	return call.Op, nil
}

// uriTemplate turns a REST request URI ("/clusters/{name}/addons/{addonName}/update", a
// "?query" left out) into a pattern of the paths it stands for.
func uriTemplate(uri string) *regexp.Regexp {
	uri, _, _ = strings.Cut(uri, "?")
	var b strings.Builder
	b.WriteString("^")
	for rest := uri; rest != ""; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			b.WriteString(regexp.QuoteMeta(rest[i:]))
			break
		}
		if strings.HasSuffix(rest[i:i+j], "+") {
			b.WriteString(".+")
		} else {
			b.WriteString("[^/]+")
		}
		rest = rest[i+j+1:]
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// AWSReadOnly reports whether an AWS CLI subcommand only reads: describe-*, get-* and list-*
// (and the waiters, which describe until a state is reached).
func AWSReadOnly(subcommand string) bool {
	for _, p := range []string{"describe-", "get-", "list-"} {
		if strings.HasPrefix(subcommand, p) {
			return true
		}
	}
	return subcommand == "wait"
}
