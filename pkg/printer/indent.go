package printer

import "bytes"

// appendIndented appends src, compact JSON as encoding/json writes it (valid, without
// whitespace between tokens), to dst indented exactly as json.Indent indents it with prefix
// and indent: each element and member on a line of its own, ": " after keys, empty objects and
// arrays as {} and []. json.Indent runs its scanner over every byte; this looks only at the
// bytes outside strings and copies each string whole, which at 100,000 nodes is most of the
// report's text. Anything but such compact JSON gives output that means nothing.
func appendIndented(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			end := jsonStringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// jsonStringEnd returns the index just past the JSON string that starts at src[at] (its
// opening quote): the first quote after it that no backslash escapes.
func jsonStringEnd(src []byte, at int) int {
	i := at + 1
	for {
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			return len(src)
		}
		i += q
		backslashes := 0
		for j := i - 1; j > at && src[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i + 1
		}
		i++
	}
}
