package ec2sim

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/karpnet/kubectl-karpnet/pkg/snapshot"
)

// hostile holds the faults that make the server answer like a broken EC2, or like something
// that is not EC2 at all. Guarded by Server.mu.
type hostile struct {
	tokens  map[string]Tokens
	bodies  map[string]rawBody
	latency map[string]time.Duration
	// extra is how many instances nobody asked for every DescribeInstances answer carries.
	extra int
}

// rawBody is a fixed answer that replaces EC2's.
type rawBody struct {
	status      int
	contentType string
	body        string
}

// Tokens says how an action's NextTokens are bent.
type Tokens int

const (
	// CycleTokens answers every request of the action with its first page and a NextToken that
	// alternates between two values, A then B then A.
	CycleTokens Tokens = iota + 1
	// EndlessTokens answers every request with the first page and a NextToken never seen before.
	EndlessTokens
)

// SetTokens bends the NextTokens of a paginated action (not DescribePlacementGroups, which
// does not paginate); 0 restores them.
func (s *Server) SetTokens(action string, t Tokens) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.hostile.tokens == nil {
		s.faults.hostile.tokens = map[string]Tokens{}
	}
	s.faults.hostile.tokens[action] = t
}

// SetBody makes every answer to action the raw body with status and content type instead of
// EC2's XML: a captive portal's login page with 200, a proxy's HTML 500, an empty answer.
func (s *Server) SetBody(action string, status int, contentType, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.hostile.bodies == nil {
		s.faults.hostile.bodies = map[string]rawBody{}
	}
	s.faults.hostile.bodies[action] = rawBody{status: status, contentType: contentType, body: body}
}

// SetActionLatency delays every answer to action by d (a canceled request stops waiting), on
// top of SetLatency.
func (s *Server) SetActionLatency(action string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.hostile.latency == nil {
		s.faults.hostile.latency = map[string]time.Duration{}
	}
	s.faults.hostile.latency[action] = d
}

// SetExtraInstances makes every DescribeInstances answer carry n more running instances that
// no filter selected, after the ones asked for. They are generated as the answer is written,
// so the server stays small however large n is, and it stops when the client hangs up.
func (s *Server) SetExtraInstances(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.hostile.extra = n
}

// hostileQuery applies a tokens fault to q: the request's own token is dropped, so the first
// page is answered; it returns the token to answer with, or "" to keep the real one.
func (s *Server) hostileQuery(action string, q *query) string {
	s.mu.Lock()
	t := s.faults.hostile.tokens[action]
	s.mu.Unlock()
	token := q.nextToken
	switch t {
	case CycleTokens:
		q.nextToken = ""
		if token == "cycle-a" {
			return "cycle-b"
		}
		return "cycle-a"
	case EndlessTokens:
		q.nextToken = ""
		n, _ := strconv.Atoi(strings.TrimPrefix(token, "endless-"))
		return "endless-" + strconv.Itoa(n+1)
	}
	return ""
}

// withNextToken returns body with its NextToken replaced by next.
func withNextToken(body any, next string) any {
	switch b := body.(type) {
	case describeInstancesResponse:
		b.NextToken = next
		return b
	case describeSubnetsResponse:
		b.NextToken = next
		return b
	case describeSecurityGroupsResponse:
		b.NextToken = next
		return b
	case describeInstanceTypesResponse:
		b.NextToken = next
		return b
	case describeRouteTablesResponse:
		b.NextToken = next
		return b
	case describeNatGatewaysResponse:
		b.NextToken = next
		return b
	case describeVpcEndpointsResponse:
		b.NextToken = next
		return b
	case describeNetworkAclsResponse:
		b.NextToken = next
		return b
	case describeVpcsResponse:
		b.NextToken = next
		return b
	case describeDhcpOptionsResponse:
		b.NextToken = next
		return b
	case describeNetworkInterfacesResponse:
		b.NextToken = next
		return b
	case getSubnetCidrReservationsResponse:
		b.NextToken = next
		return b
	}
	return body
}

// hostileAnswer waits the action's own latency, then writes the action's raw body if it has
// one, and reports whether it did; false also when the request was canceled while waiting.
func (s *Server) hostileAnswer(w http.ResponseWriter, r *http.Request, action string) (answered bool) {
	s.mu.Lock()
	d := s.faults.hostile.latency[action]
	raw, ok := s.faults.hostile.bodies[action]
	s.mu.Unlock()
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-r.Context().Done():
			return true
		case <-t.C:
		}
	}
	if !ok {
		return false
	}
	if raw.contentType != "" {
		w.Header().Set("Content-Type", raw.contentType)
	}
	w.WriteHeader(raw.status)
	_, _ = w.Write([]byte(raw.body))
	return true
}

// extraInstances returns how many instances nobody asked for to add to an answer.
func (s *Server) extraInstances() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults.hostile.extra
}

// writeInstances writes a DescribeInstances answer with extra generated instances after
// resp's own, streaming it so that nothing but one instance at a time is held.
func writeInstances(w http.ResponseWriter, resp describeInstancesResponse, extra int) {
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := xml.NewEncoder(bw)
	fmt.Fprintf(bw, `%s<DescribeInstancesResponse xmlns="%s"><requestId>%s</requestId><reservationSet>`, xml.Header, xmlns, requestID)
	item := xml.StartElement{Name: xml.Name{Local: "item"}}
	if resp.Reservations != nil {
		for _, r := range resp.Reservations.Items {
			if enc.EncodeElement(r, item) != nil {
				return
			}
		}
	}
	for i := range extra {
		id := fmt.Sprintf("i-e%016x", i)
		in := snapshot.Instance{
			ID: id, Type: "m5.large", State: "running", Zone: "us-west-2a", SubnetID: "subnet-0e0e0e0e0e0e0e0e0",
			PrivateIP: "10.99.0.1", SecurityGroups: []snapshot.GroupRef{{ID: "sg-0e0e0e0e0e0e0e0e0"}},
			ENIs: []snapshot.ENI{{ID: "eni-" + id[2:], SubnetID: "subnet-0e0e0e0e0e0e0e0e0", PrimaryIP: "10.99.0.1",
				PrivateIPs: []string{"10.99.0.1", "10.99.0.2", "10.99.0.3"}}},
		}
		r := xmlReservation{ReservationID: reservationID(id), OwnerID: "123456789012",
			Instances: setOf([]xmlInstance{toXMLInstance(in)})}
		if enc.EncodeElement(r, item) != nil {
			return
		}
	}
	if enc.Flush() != nil {
		return
	}
	bw.WriteString("</reservationSet>")
	if resp.NextToken != "" && enc.EncodeElement(resp.NextToken, xml.StartElement{Name: xml.Name{Local: "nextToken"}}) != nil {
		return
	}
	if enc.Flush() != nil {
		return
	}
	bw.WriteString("</DescribeInstancesResponse>")
	_ = bw.Flush()
}
