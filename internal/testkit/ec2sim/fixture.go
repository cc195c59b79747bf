package ec2sim

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// Answer returns the body of the server's answer to action with form (one page), failing tb
// unless it is a 200: the bytes an EC2 client is handed to decode.
func (s *Server) Answer(tb testing.TB, action string, form url.Values) []byte {
	tb.Helper()
	form = cloneForm(form)
	form.Set("Action", action)
	form.Set("Version", APIVersion)
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261201/us-west-2/ec2/aws4_request")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("ec2sim answered %s with %d: %s", action, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

func cloneForm(form url.Values) url.Values {
	out := url.Values{}
	for k, v := range form {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// EveryFieldInstances are instances with every field of snapshot.Instance set, in the shapes
// karpnet meets: several ENIs and network cards (EFA), prefixes, IPv6, a trunk, partition
// placement, Spot, a Capacity Reservation, a public address and tags with characters XML
// escapes; then two with few fields.
func EveryFieldInstances() []snapshot.Instance {
	launch := time.Date(2026, 11, 30, 8, 15, 42, 0, time.UTC)
	return []snapshot.Instance{
		{
			ID: "i-0a1", Type: "p5.48xlarge", State: "running", Zone: "us-west-2a", ZoneID: "usw2-az1",
			VpcID: "vpc-1", SubnetID: "subnet-a", PrivateIP: "10.0.1.10", PublicIP: "54.1.2.3", LaunchTime: launch,
			Lifecycle: "spot", CapacityReservationID: "cr-123",
			MetadataOptions: snapshot.MetadataOptions{HTTPEndpoint: "enabled", HTTPTokens: "required", HTTPPutResponseHopLimit: 1},
			SecurityGroups:  []snapshot.GroupRef{{ID: "sg-2", Name: "node"}, {ID: "sg-1", Name: "cluster & <shared>"}},
			Tags: map[string]string{"kubernetes.io/cluster/prod": "owned", "karpenter.sh/nodepool": "gpu",
				"Name": `a "quoted" 'name' & <more>`, "unicode": "zoë ☃"},
			Placement: snapshot.Placement{GroupName: "pg-cluster", GroupID: "pg-1", PartitionNumber: 3, Tenancy: "default"},
			ENIs: []snapshot.ENI{
				{ID: "eni-0", InterfaceType: "interface", SubnetID: "subnet-a", PrimaryIP: "10.0.1.10",
					PrivateIPs: []string{"10.0.1.10", "10.0.1.11", "10.0.1.12"}, IPv4Prefixes: []string{"10.0.2.16/28"},
					SecurityGroups: []snapshot.GroupRef{{ID: "sg-1"}}, Description: "Primary network interface", Status: "in-use",
					ConnectionTracking: snapshot.ConnectionTracking{TCPEstablishedTimeout: 350, UDPTimeout: 30}},
				{ID: "eni-1", InterfaceType: "efa", SubnetID: "subnet-a", PrimaryIP: "10.0.1.20", NetworkCardIndex: 1, DeviceIndex: 1,
					PrivateIPs: []string{"10.0.1.20"}, Status: "in-use"},
				{ID: "eni-2", InterfaceType: "trunk", SubnetID: "subnet-b", PrimaryIP: "10.0.3.5", DeviceIndex: 2,
					IPv6Addresses: []string{"2600:1f14::5"}, IPv6Prefixes: []string{"2600:1f14:0:1::/80"}, Status: "in-use"},
			},
		},
		{ID: "i-0b2", Type: "m5.large", State: "shutting-down", Zone: "us-west-2b", SubnetID: "subnet-b", PrivateIP: "10.0.3.9",
			StateTransitionReason: "User initiated (2026-11-30 09:01:02 GMT)",
			MetadataOptions:       snapshot.MetadataOptions{HTTPTokens: "optional", HTTPPutResponseHopLimit: 2}},
		{ID: "i-0c3", Type: "c7g.xlarge", State: "pending"},
	}
}
