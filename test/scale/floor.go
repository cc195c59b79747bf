package scale

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/karpnet/kubectl-karpnet/internal/kubestream"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
)

// floorPageSize is the page of the node list the floor reads, karpnet's own.
const floorPageSize = 500

// Floor measures, against the same API server and EC2 as check, what no client of them can
// beat: the node list in pages of 500 (protobuf, as karpnet asks for it) and the NodeClaim list
// (JSON, from the watch cache), fetched at once over the kubeconfig's connection and read to
// their last byte (nodes not decoded, the JSON only scanned for its continue token), then one
// EC2 round trip. check's wall time over the floor
// is what karpnet adds to the servers' own time.
func (e *Env) Floor(ctx context.Context, c Conditions) (time.Duration, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", e.kubeconfig)
	if err != nil {
		return 0, err
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return 0, err
	}
	e.counter.take()
	defer e.counter.take() // the floor's requests are not check's
	start := time.Now()
	var g errgroup.Group
	g.Go(func() error { return floorNodes(ctx, client, cfg.Host) })
	g.Go(func() error { return floorClaims(ctx, client, cfg.Host) })
	if err := g.Wait(); err != nil {
		return 0, err
	}
	lists := time.Since(start)

	e.EC2.SetLatency(c.Latency)
	defer e.EC2.SetLatency(0)
	api := ec2sim.NewClient(e.ec2Server.URL, Region)
	start = time.Now()
	if _, err := api.DescribeInstances(ctx, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(5)}); err != nil {
		return 0, fmt.Errorf("the floor's EC2 round trip: %w", err)
	}
	return lists + time.Since(start), nil
}

// floorGet GETs host+path with query and accept, and hands the answer's body to read.
func floorGet(ctx context.Context, client *http.Client, host, path string, query url.Values, accept string,
	read func(io.Reader) error,
) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+path+"?"+query.Encode(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return read(resp.Body)
}

// floorNodes reads every page of the node list as bytes, following its continue tokens.
func floorNodes(ctx context.Context, client *http.Client, host string) error {
	token := ""
	for {
		q := url.Values{"limit": {fmt.Sprint(floorPageSize)}}
		if token == "" {
			q.Set("resourceVersion", "0")
		} else {
			q.Set("continue", token)
		}
		var meta string
		err := floorGet(ctx, client, host, "/api/v1/nodes", q, "application/vnd.kubernetes.protobuf", func(r io.Reader) error {
			m, err := kubestream.StreamNodeList(bufio.NewReader(r), 0, nil, func(*kubestream.NodePage) error { return nil })
			meta = m.Continue
			return err
		})
		if err != nil {
			return fmt.Errorf("the floor's node list: %w", err)
		}
		if token = meta; token == "" {
			return nil
		}
	}
}

// floorClaims reads the NodeClaim list from the watch cache, following continue tokens.
func floorClaims(ctx context.Context, client *http.Client, host string) error {
	token := ""
	for {
		q := url.Values{"limit": {fmt.Sprint(floorPageSize)}, "resourceVersion": {"0"}}
		if token != "" {
			q = url.Values{"limit": {fmt.Sprint(floorPageSize)}, "continue": {token}}
		}
		var list struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
		}
		err := floorGet(ctx, client, host, "/apis/karpenter.sh/v1/nodeclaims", q, "application/json", func(r io.Reader) error {
			return json.NewDecoder(r).Decode(&list)
		})
		if err != nil {
			return fmt.Errorf("the floor's NodeClaim list: %w", err)
		}
		if token = list.Metadata.Continue; token == "" {
			return nil
		}
	}
}
