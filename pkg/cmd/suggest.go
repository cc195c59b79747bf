package cmd

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
)

// maxSuggestions is how many close values a "did you mean" names.
const maxSuggestions = 3

// suggestions returns the candidates closest to typed, nearest first, at most maxSuggestions:
// those within an edit distance of maxDistance, and those that
// start with typed (3 characters or more), the way cobra and kubectl suggest.
func suggestions(typed string, candidates []string) []string {
	items := make([]spelled, len(candidates))
	for i, c := range candidates {
		items[i] = spelled{name: c, spellings: []string{c}}
	}
	return nearest(typed, items)
}

// spelled is a value that can be suggested, and the spellings that lead to it (a command's
// name and aliases).
type spelled struct {
	name      string
	spellings []string
}

// nearest is suggestions over values that have several spellings: a value is as near as its
// nearest spelling, and named once. Its cost is linear in the candidates whatever is typed: a
// spelling is only compared within maxDistance of its length (a longer typed name is a prefix
// of nothing and within the distance of nothing, so it costs one length test per spelling),
// and the distance is computed in a band that stops once it passes maxDistance.
func nearest(typed string, items []spelled) []string {
	type near struct {
		name string
		dist int
	}
	lower := strings.ToLower(typed)
	var found []near
	seen := map[string]bool{}
	for _, it := range items {
		if it.name == "" || it.name == typed || seen[it.name] {
			continue
		}
		best, ok := 0, false
		for _, sp := range it.spellings {
			if sp == "" || len(sp)+maxDistance < len(lower) {
				continue
			}
			sp = strings.ToLower(sp)
			d, match := 0, false
			switch {
			case len(lower) >= 3 && strings.HasPrefix(sp, lower):
				d, match = len(sp)-len(lower), true // the distance of a prefix is what it lacks
			default:
				d = boundedDistance(lower, sp, maxDistance)
				match = d <= maxDistance
			}
			if match && (!ok || d < best) {
				best, ok = d, true
			}
		}
		if ok {
			seen[it.name] = true
			found = append(found, near{it.name, best})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.name, b.name)) })
	out := make([]string, 0, maxSuggestions)
	for _, n := range found[:min(len(found), maxSuggestions)] {
		out = append(out, n.name)
	}
	return out
}

// maxDistance is the widest edit distance a suggestion is at (cobra's
// SuggestionsMinimumDistance); a wider one would suggest the neighbours of node names, which
// differ from each other by as little.
const maxDistance = 2

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	return boundedDistance(a, b, max(len(a), len(b)))
}

// boundedDistance is the Levenshtein distance of a and b, in bytes, when it is at most limit,
// and limit+1 when it is more. It fills only the band of cells within limit of the diagonal
// and stops at the first row whose every cell is past limit, so it costs
// O(min(len(a), len(b)) * limit) at most, and nothing when the lengths differ by more than limit.
func boundedDistance(a, b string, limit int) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > limit {
		return limit + 1
	}
	over := limit + 1
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = min(j, over)
	}
	for i := 1; i <= len(a); i++ {
		// Row i is filled from column lo to hi; the cells just outside are past the limit.
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		cur[lo-1] = over
		if lo == 1 {
			cur[0] = min(i, over)
		}
		if hi < len(b) {
			cur[hi+1] = over
		}
		rowMin := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, over)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return over
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], over)
}

// didYouMean is "did you mean a?", "did you mean a or b?" or "did you mean a, b or c?"; ""
// for none.
func didYouMean(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return "did you mean " + s[0] + "?"
	}
	return "did you mean " + strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1] + "?"
}

// subcommandArgs is the Args of a command that takes no arguments of its own but has
// subcommands: an argument is an unknown command, and the error suggests the subcommands
// (names and aliases) closest to it.
func subcommandArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var subs []spelled
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			subs = append(subs, spelled{name: sub.Name(), spellings: append(append([]string{sub.Name()}, sub.Aliases...), sub.SuggestFor...)})
		}
	}
	hint := didYouMean(nearest(args[0], subs))
	if hint != "" {
		hint += " "
	}
	return usageErrorf("unknown command %q for %q: %ssee '%s --help'", args[0], c.CommandPath(), hint, c.CommandPath())
}

// checkIDsError is the usage error for the check IDs of flag (--only, --skip; "" for explain's
// arguments) that are not built-in checks, nil when all are: it suggests the IDs closest to
// each unknown one and, when one has none close, lists every ID.
func checkIDsError(flag string, ids []string) error {
	valid := diagnose.CheckIDs()
	var unknown, hints, hinted []string
	listAll := false
	for _, id := range ids {
		if slices.Contains(valid, id) || slices.Contains(unknown, id) {
			continue
		}
		unknown = append(unknown, id)
		s := suggestions(id, valid)
		if len(s) == 0 {
			listAll = true
			continue
		}
		hinted = append(hinted, didYouMean(s))
		hints = append(hints, fmt.Sprintf("%q: %s", id, didYouMean(s)))
	}
	if len(unknown) == 0 {
		return nil
	}
	quoted := make([]string, len(unknown))
	for i, id := range unknown {
		quoted[i] = fmt.Sprintf("%q", id)
	}
	msg := "unknown check ID " + quoted[0]
	if len(unknown) > 1 {
		msg = "unknown check IDs " + strings.Join(quoted, ", ")
	}
	if flag != "" {
		msg = flag + ": " + msg
	}
	if len(unknown) == 1 && len(hinted) == 1 {
		return usageErrorf("%s: %s", msg, hinted[0])
	}
	if len(hints) > 0 {
		msg += " (" + strings.Join(hints, "; ") + ")"
	}
	if !listAll {
		return usageErrorf("%s", msg)
	}
	return &exitError{code: ExitUsage, err: fmt.Errorf("%s: use one of the %d check IDs below (kubectl karpnet explain --list)", msg, len(valid)),
		list: valid}
}

// listWidth is the width lists of valid values are wrapped to: the terminal's when w is one,
// else 80.
func (o *commonOptions) listWidth(w any) int {
	if o.isTerminal(w) {
		if width := o.termWidth(w); width >= 20 {
			return width
		}
	}
	return 80
}

// terminalWidth is the width of the terminal w is, 0 when it cannot be told.
func terminalWidth(w any) int {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return 0
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return width
}

// wrapList lays items out as comma-separated lines of at most width columns, each indented
// by two spaces; an item longer than a line has a line of its own.
func wrapList(items []string, width int) []string {
	var lines []string
	line := ""
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		switch {
		case line == "":
			line = "  " + it
		case len(line)+1+len(it) <= width:
			line += " " + it
		default:
			lines = append(lines, line)
			line = "  " + it
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// flagSuggestion is "did you mean --only?" for pflag's unknown flag --onyl, over the flags c
// takes (its own and those it inherits); "" for other errors or when no flag is near.
func flagSuggestion(c *cobra.Command, err error) string {
	var unknown *pflag.NotExistError
	if !errors.As(err, &unknown) || unknown.GetSpecifiedShortnames() != "" || unknown.GetSpecifiedName() == "" {
		return "" // not an unknown long flag (a shorthand letter has no near name worth suggesting)
	}
	typed := unknown.GetSpecifiedName()
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	s := suggestions(typed, names)
	for i := range s {
		s[i] = "--" + s[i]
	}
	return didYouMean(s)
}
