package collect

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/karpnet/kubectl-karpnet/internal/sdkhttp"
	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// ec2MaxAnswer is the most bytes karpnet reads of one EC2 answer. The largest answer it asks
// for is a DescribeInstances page of at most 200 instances (a filter takes 200 IDs). Measured
// in internal/testkit/ec2sim's XML: 200 nodes of the scale test (1 to 3 ENIs full of addresses, EFA
// nodes with 31 cards) are 0.96 MiB; 200 instances of 15 ENIs of 50 addresses (a c5.24xlarge
// full of pods, see TestEC2MaxAnswerFitsLargeNodes) 14.3 MiB; 1,000 instances of 8 ENIs of 30
// addresses 25.7 MiB. 64 MiB holds all of them with room to spare, and bounds what an endpoint
// that answers more than was asked for can make karpnet hold: a million instances cost 0.3 GB
// and 4 s instead of 6.8 GB and 74 s.
const ec2MaxAnswer = 64 << 20

// ec2CheckAnswers makes one call check its answer (sdkhttp.QueryAnswers): an answer that is not
// the call's EC2 document, or longer than ec2MaxAnswer, fails the call.
func ec2CheckAnswers(o *ec2.Options) {
	o.APIOptions = append(o.APIOptions, sdkhttp.QueryAnswers(ec2MaxAnswer))
}

// ec2AnswerFailure is the gap of a call whose answer was not EC2's or was too long. A success
// that is not EC2 (a captive portal, a proxy's page) covers every call: nothing the endpoint
// says is EC2's, so no call is made after it.
func ec2AnswerFailure(source, region string, err *sdkhttp.AnswerError) ec2Failure {
	switch {
	case err.Limit > 0:
		return ec2Failure{gap: snapshot.Gap{Source: source, Reason: err.Error(),
			Remedy: "check AWS_ENDPOINT_URL_EC2 and any proxy between karpnet and EC2: the endpoint answered far more than was asked for"}}
	case err.NotEC2():
		return ec2Failure{whole: true, gap: snapshot.Gap{Source: snapshot.SourceEC2, Reason: err.Error(),
			Remedy: fmt.Sprintf("the EC2 endpoint in %s is not answering as EC2: check AWS_ENDPOINT_URL_EC2, HTTPS_PROXY and "+
				"any captive portal or proxy between karpnet and EC2", region)}}
	}
	return ec2Failure{gap: snapshot.Gap{Source: source, Reason: err.Error(),
		Remedy: "retry; if it persists, check AWS_ENDPOINT_URL_EC2 and any proxy between karpnet and EC2"}}
}
