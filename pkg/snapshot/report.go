package snapshot

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"
)

// IsReport tells whether r holds a karpnet report (`check -o json` or `-o yaml`) rather than a
// snapshot: a document whose top-level kind is Report, or that has both findings and summary
// at its top level. r may be JSON or YAML, plain or gzip-compressed; at most maxBytes of it
// (after gzip) are read, through the same bounds Read applies. Saving a report where a
// snapshot was meant is a common mistake, and the error that replaying one gives should say so.
func IsReport(r io.Reader, maxBytes int64) bool {
	br := bufio.NewReaderSize(r, 64<<10)
	var in io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return false
		}
		defer zr.Close()
		in = zr
	}
	text := bufio.NewReaderSize(io.LimitReader(in, maxBytes), 64<<10)
	for {
		c, err := text.ReadByte()
		if err != nil {
			return false
		}
		if strings.IndexByte(" \t\r\n", c) < 0 {
			_ = text.UnreadByte()
			if c == '{' {
				return jsonIsReport(&guard{r: text, max: maxBytes})
			}
			return yamlIsReport(text)
		}
	}
}

// jsonIsReport reads the top-level keys of a JSON object, skipping their values.
func jsonIsReport(r io.Reader) bool {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	var findings, summary bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch key, _ := tok.(string); key {
		case "kind":
			v, err := dec.Token()
			if err != nil {
				return false
			}
			kind, _ := v.(string)
			return kind == "Report"
		case "findings":
			findings = true
		case "summary":
			summary = true
		}
		if findings && summary {
			return true
		}
		if !skipJSONValue(dec) {
			return false
		}
	}
	return false
}

// skipJSONValue reads one value, however deep, without keeping it.
func skipJSONValue(dec *json.Decoder) bool {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return true
		}
	}
}

// yamlIsReport reads the top-level keys of a YAML document (lines that start with a key),
// up to the end of the first document.
func yamlIsReport(r *bufio.Reader) bool {
	var findings, summary bool
	for first := true; ; first = false {
		line, err := readLine(r)
		if len(line) > 0 && line[0] != ' ' && line[0] != '\t' && line[0] != '-' && line[0] != '#' {
			key, value, ok := strings.Cut(strings.TrimRight(line, "\r"), ":")
			switch {
			case !ok:
			case key == "kind":
				value = strings.Trim(strings.TrimSpace(value), `"'`)
				return value == "Report"
			case key == "findings":
				findings = true
			case key == "summary":
				summary = true
			}
		}
		if line == "---" && !first || line == "..." {
			break
		}
		if findings && summary {
			return true
		}
		if err != nil {
			break
		}
	}
	return false
}

// readLine returns the next line of r without its newline; of a line longer than MaxString
// only the start is kept.
func readLine(r *bufio.Reader) (string, error) {
	var b []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(b) < MaxString {
			b = append(b, part[:min(len(part), MaxString-len(b))]...)
		}
		if err != bufio.ErrBufferFull {
			return strings.TrimSuffix(string(b), "\n"), err
		}
	}
}
