package sheet

import "slices"

// sortedUnique returns ss sorted, without duplicates and empty strings.
func sortedUnique(ss []string) []string {
	out := slices.DeleteFunc(slices.Clone(ss), func(s string) bool { return s == "" })
	slices.Sort(out)
	return slices.Compact(out)
}
