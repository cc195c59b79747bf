package ec2sim

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// maxFilterValues is EC2's limit on the values of one filter.
const maxFilterValues = 200

// query is the decoded form of an EC2 query-protocol request.
type query struct {
	filters []filter
	// lists holds flat list parameters (Name.N) by name, in index order.
	lists      map[string][]string
	maxResults int
	nextToken  string
	// scalars holds the other parameters without an index, such as SubnetId.
	scalars map[string]string
}

// filter is one Filter.N with its values.
type filter struct {
	name   string
	values []string
}

type indexed struct {
	n int
	v string
}

// parseQuery decodes Filter.N.Name, Filter.N.Value.M, flat lists (Name.N), MaxResults and
// NextToken from a form.
func parseQuery(form url.Values) (query, error) {
	q := query{lists: map[string][]string{}, scalars: map[string]string{}}
	names := map[int]string{}
	values := map[int][]indexed{}
	lists := map[string][]indexed{}
	for key, vs := range form {
		if len(vs) == 0 {
			continue
		}
		v := vs[0]
		parts := strings.Split(key, ".")
		switch {
		case key == "MaxResults":
			n, err := strconv.Atoi(v)
			if err != nil {
				return q, fmt.Errorf("invalid MaxResults %q", v)
			}
			q.maxResults = n
		case key == "NextToken":
			q.nextToken = v
		case parts[0] == "Filter" && len(parts) == 3 && parts[2] == "Name":
			n, err := strconv.Atoi(parts[1])
			if err != nil {
				return q, fmt.Errorf("invalid parameter %s", key)
			}
			names[n] = v
		case parts[0] == "Filter" && len(parts) == 4 && parts[2] == "Value":
			n, err1 := strconv.Atoi(parts[1])
			m, err2 := strconv.Atoi(parts[3])
			if err1 != nil || err2 != nil {
				return q, fmt.Errorf("invalid parameter %s", key)
			}
			values[n] = append(values[n], indexed{m, v})
		case len(parts) == 2:
			n, err := strconv.Atoi(parts[1])
			if err != nil {
				return q, fmt.Errorf("invalid parameter %s", key)
			}
			lists[parts[0]] = append(lists[parts[0]], indexed{n, v})
		case len(parts) == 1:
			q.scalars[key] = v
		}
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		f := filter{name: names[n], values: inOrder(values[n])}
		if len(f.values) > maxFilterValues {
			return q, fmt.Errorf("the maximum number of filter values specified on a single call is %d", maxFilterValues)
		}
		q.filters = append(q.filters, f)
	}
	for name, vs := range lists {
		q.lists[name] = inOrder(vs)
	}
	return q, nil
}

func inOrder(vs []indexed) []string {
	slices.SortFunc(vs, func(a, b indexed) int { return cmp.Compare(a.n, b.n) })
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.v
	}
	return out
}

// filterMap returns the filters by name.
func (q query) filterMap() map[string][]string {
	m := make(map[string][]string, len(q.filters))
	for _, f := range q.filters {
		m[f.name] = append(m[f.name], f.values...)
	}
	return m
}

// values returns the values of filter name, and whether the filter is present.
func (q query) values(name string) ([]string, bool) {
	for _, f := range q.filters {
		if f.name == name {
			return f.values, true
		}
	}
	return nil, false
}

// signingRegion returns the Region of a SigV4 Authorization header's credential scope.
func signingRegion(auth string) string {
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(cred, "/")
	if len(parts) < 3 {
		return ""
	}
	return parts[2]
}

// page cuts keys to one page from the NextToken offset. size <= 0 means everything.
func page(keys []string, token string, size int) (out []string, next string, err error) {
	start := 0
	if token != "" {
		start, err = strconv.Atoi(token)
		if err != nil || start < 0 || start > len(keys) {
			return nil, "", fmt.Errorf("invalid NextToken %q", token)
		}
	}
	end := len(keys)
	if size > 0 && start+size < end {
		end = start + size
		next = strconv.Itoa(end)
	}
	return keys[start:end], next, nil
}

// pageSize returns the page size for a request: the smaller of the server's and MaxResults.
func (s *Server) pageSizeFor(q query) int {
	n := s.pageSize
	if q.maxResults > 0 && (n <= 0 || q.maxResults < n) {
		n = q.maxResults
	}
	return n
}

type xmlError struct {
	XMLName   xml.Name `xml:"Response"`
	Code      string   `xml:"Errors>Error>Code"`
	Message   string   `xml:"Errors>Error>Message"`
	RequestID string   `xml:"RequestID"`
}

const requestID = "7a62c49f-347e-4fc4-9331-6e8eEXAMPLE"

// writeError writes an EC2 error answer.
func writeError(w http.ResponseWriter, status int, code, message string) {
	body, _ := xml.Marshal(xmlError{Code: code, Message: message, RequestID: requestID})
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(append([]byte(xml.Header), body...))
}

// marshalXML renders an answer with the XML header.
func marshalXML(v any) ([]byte, error) {
	body, err := xml.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), body...), nil
}

// writeBody writes a rendered answer.
func writeBody(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}
