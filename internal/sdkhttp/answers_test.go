package sdkhttp_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/karpnet/kubectl-karpnet/internal/sdkhttp"
	"github.com/karpnet/kubectl-karpnet/internal/testkit/ec2sim"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// describe calls DescribeInstances for one instance with answers checked at limit bytes.
func describe(t *testing.T, sim *ec2sim.Server, limit int64) (*ec2.DescribeInstancesOutput, error) {
	t.Helper()
	client := ec2sim.NewClient(sim.Start(t), "us-west-2")
	return client.DescribeInstances(t.Context(), &ec2.DescribeInstancesInput{
		Filters: []types.Filter{{Name: aws.String("instance-id"), Values: []string{"i-0000000000000000a"}}},
	}, func(o *ec2.Options) { o.APIOptions = append(o.APIOptions, sdkhttp.QueryAnswers(limit)) })
}

func TestQueryAnswersPassEC2Answers(t *testing.T) {
	sim := ec2sim.New()
	sim.AddInstances(snapshot.Instance{ID: "i-0000000000000000a", Type: "m5.large"})
	out, err := describe(t, sim, 1<<20)
	if err != nil || len(out.Reservations) != 1 {
		t.Fatalf("an EC2 answer: got %v, %v; want the instance", out, err)
	}
	// moto answers EC2's XML as text/html, after an XML declaration.
	sim.SetBody(ec2sim.DescribeInstances, http.StatusOK, "text/html; charset=utf-8",
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- moto -->\n<DescribeInstancesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"+
			"<requestId>r</requestId><reservationSet/></DescribeInstancesResponse>")
	if _, err := describe(t, sim, 1<<20); err != nil {
		t.Errorf("moto's answer: got %v, want it read", err)
	}
	sim.SetBody(ec2sim.DescribeInstances, http.StatusForbidden, "text/xml",
		`<Response><Errors><Error><Code>UnauthorizedOperation</Code><Message>no</Message></Error></Errors><RequestID>r</RequestID></Response>`)
	_, err = describe(t, sim, 1<<20)
	var apiErr smithy.APIError
	var answer *sdkhttp.AnswerError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "UnauthorizedOperation" || errors.As(err, &answer) {
		t.Errorf("an EC2 error answer: got %v, want the SDK's UnauthorizedOperation", err)
	}
}

func TestQueryAnswersRejectOtherAnswers(t *testing.T) {
	const portal = "<!DOCTYPE html>\n<html><body>\x1b[2JSign in to the guest network</body></html>"
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
		body        string
		want        string
		attempts    int
		notEC2      bool
	}{
		{"captive portal", http.StatusOK, "text/html", portal,
			`HTTP 200 from the EC2 endpoint, text/html, not a DescribeInstances answer: "<!DOCTYPE html> <html><body>\x1b[2JSign in`, 1, true},
		{"empty success", http.StatusOK, "", "",
			"HTTP 200 from the EC2 endpoint, not a DescribeInstances answer: an empty body", 1, true},
		{"JSON success", http.StatusOK, "application/json", `{"Reservations": []}`,
			`HTTP 200 from the EC2 endpoint, application/json, not a DescribeInstances answer: "{"Reservations": []}"`, 1, true},
		{"another action's answer", http.StatusOK, "text/xml", `<DescribeSubnetsResponse><subnetSet/></DescribeSubnetsResponse>`,
			"not a DescribeInstances answer", 1, true},
		{"proxy error page", http.StatusInternalServerError, "text/html", "<html><body><h1>500 Internal Server Error</h1></body></html>",
			`HTTP 500 from the EC2 endpoint, text/html, not EC2's XML: "<html><body><h1>500 Internal Server Error</h1></body></html>"`,
			ec2sim.ClientMaxAttempts, false},
		{"gateway timeout without a body", http.StatusGatewayTimeout, "", "",
			"HTTP 504 from the EC2 endpoint, not EC2's XML: an empty body", ec2sim.ClientMaxAttempts, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim := ec2sim.New()
			sim.SetBody(ec2sim.DescribeInstances, tc.status, tc.contentType, tc.body)
			out, err := describe(t, sim, 1<<20)
			var answer *sdkhttp.AnswerError
			if !errors.As(err, &answer) {
				t.Fatalf("got %+v, %v; want an *AnswerError", out, err)
			}
			if !strings.Contains(answer.Error(), tc.want) {
				t.Errorf("error:\n%s\nwant it to contain\n%s", answer.Error(), tc.want)
			}
			if strings.ContainsAny(answer.Error(), "\x1b\n") {
				t.Errorf("error %q: want one line, control characters escaped", answer.Error())
			}
			if answer.NotEC2() != tc.notEC2 {
				t.Errorf("NotEC2: got %v, want %v", answer.NotEC2(), tc.notEC2)
			}
			if got := sim.Count(ec2sim.DescribeInstances); got != tc.attempts {
				t.Errorf("attempts: got %d, want %d", got, tc.attempts)
			}
		})
	}
}

func TestQueryAnswersBoundTheBody(t *testing.T) {
	sim := ec2sim.New()
	sim.AddInstances(snapshot.Instance{ID: "i-0000000000000000a", Type: "m5.large"})
	sim.SetExtraInstances(1_000_000)
	_, err := describe(t, sim, 1<<20)
	var answer *sdkhttp.AnswerError
	if !errors.As(err, &answer) || answer.Limit != 1<<20 {
		t.Fatalf("a million instances: got %v, want an *AnswerError of the 1 MiB limit", err)
	}
	if want := "the EC2 endpoint's answer to DescribeInstances is longer than 1 MiB, the most karpnet reads"; err != nil && answer.Error() != want {
		t.Errorf("error: got %q, want %q", answer.Error(), want)
	}
	if got := sim.Count(ec2sim.DescribeInstances); got != 1 {
		t.Errorf("attempts: got %d, want 1: a long answer comes back as long", got)
	}
	sim.SetExtraInstances(100)
	if out, err := describe(t, sim, 1<<20); err != nil || len(out.Reservations) != 101 {
		t.Errorf("an answer within the limit: got %v; want it read whole", err)
	}
}
