package ec2xml

import (
	"bytes"
	"encoding/xml"
)

// NextToken returns the nextToken element of a DescribeInstances answer, "" when it has none.
// Every value in the answer is escaped XML, so only the element itself reads <nextToken>. It
// comes at the end of the answer, and is read without reading the rest: the next page can be
// asked for while this one is decoded.
func NextToken(body []byte) string {
	start := bytes.LastIndex(body, []byte("<nextToken>"))
	if start < 0 {
		return ""
	}
	end := bytes.Index(body[start:], []byte("</nextToken>"))
	if end < 0 {
		return ""
	}
	var token string
	if xml.Unmarshal(body[start:start+end+len("</nextToken>")], &token) != nil {
		return ""
	}
	return token
}
