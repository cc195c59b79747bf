package tui

import "strings"

// naturalCompare orders names as people read them: runs of digits by their value, the rest by
// text, so ip-10-0-50-20 comes before ip-10-0-50-100 and 10.0.1.9 before 10.0.1.10. Equal
// values written differently (007 and 7) fall back to the text.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			na, nb := strings.TrimLeft(a[i:ei], "0"), strings.TrimLeft(b[j:ej], "0")
			switch {
			case len(na) != len(nb):
				return compareInts(len(na), len(nb))
			case na != nb:
				return strings.Compare(na, nb)
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return compareInts(int(a[i]), int(b[j]))
		}
		i++
		j++
	}
	if c := compareInts(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitsEnd returns the end of the run of digits that starts at i.
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func compareInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
