package printer

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// maxEvents is the most events a NodeClaim sheet lists, the newest; JSON has them all.
const maxEvents = 10

// PrintNodeClaim writes the `describe nodeclaim` output of c, a NodeClaim without a Node, to w
// in format f: the text sheet (NodeClaimSheet's at st's Width, its commands never wrapped), or
// c itself as JSON or YAML. taken is the snapshot's time, which the sheet's ages count from.
// Text shows strings as PrintReport does. st colours the text; nil means no colour.
func PrintNodeClaim(w io.Writer, c diagnose.NodeClaimReport, taken time.Time, f Format, st *style.Styles) error {
	switch {
	case f == JSON || f == YAML:
		return writeObject(w, publicClaim(c), f)
	case !f.text():
		_, err := ParseFormat(string(f))
		if err == nil {
			err = fmt.Errorf("unsupported output format %q", f)
		}
		return err
	}
	t := newText(st, 0)
	claimSheet(t, style.PrintableCopy(c), taken)
	if err := t.flush(w); err != nil {
		return fmt.Errorf("writing the NodeClaim sheet: %w", err)
	}
	return nil
}

// publicClaim returns a copy of c shaped for the public schema: its times in UTC and an
// empty list of findings instead of null.
func publicClaim(c diagnose.NodeClaimReport) diagnose.NodeClaimReport {
	utc := func(tm time.Time) time.Time {
		if tm.IsZero() {
			return tm
		}
		return tm.UTC()
	}
	c.Created = utc(c.Created)
	if c.Instance != nil {
		in := *c.Instance
		in.LaunchTime = utc(in.LaunchTime)
		c.Instance = &in
	}
	c.Conditions = slices.Clone(c.Conditions)
	for i := range c.Conditions {
		c.Conditions[i].LastTransitionTime = utc(c.Conditions[i].LastTransitionTime)
	}
	c.Events = slices.Clone(c.Events)
	for i := range c.Events {
		c.Events[i].Last = utc(c.Events[i].Last)
	}
	c.Findings = nonNil(c.Findings)
	return c
}

// NodeClaimSheet returns the sheet of c, a NodeClaim without a Node, as text whose lines fit
// width columns (at least 40; zero or less means Width): its identity and status, conditions,
// instance, the way out of the instance's subnet when known, its newest events and its
// findings with their remedies. taken is the snapshot's time. Strings are escaped and cut as
// PrintReport does. st colours the text; nil means no colour.
func NodeClaimSheet(c diagnose.NodeClaimReport, taken time.Time, width int, st *style.Styles) string {
	t := newScreen(st, width)
	claimSheet(t, style.PrintableCopy(c), taken)
	return t.b.String()
}

func claimSheet(t *text, c diagnose.NodeClaimReport, taken time.Time) {
	ref := "nodeclaim/" + c.Name
	title, badge := t.st.Title.Render(ref), claimLevel(t.st, c).Badge()
	switch {
	case width(title)+2+width(badge) <= t.limit():
		t.line(title + "  " + badge)
	default:
		t.para(0, ref)
		t.para(0, ansi.Strip(badge))
	}
	claimIdentity(t, c, taken)
	conditions(t, c, taken)
	claimInstance(t, c.Instance, taken)
	netPath(t, c.WayOut)
	events(t, c, taken)
	findings(t, c.Findings)
}

// claimLevel is the look of a claim's badge: its worst finding, else its status with the
// glyph of a node starting up (launching, registering) or going away (deleting, node deleted).
func claimLevel(st *style.Styles, c diagnose.NodeClaimReport) style.Level {
	if worst, ok := diagnose.Worst(c.Findings); ok {
		return st.Level(worst.String())
	}
	lvl := st.Initialising
	if c.Status == diagnose.ClaimDeleting || c.Status == diagnose.ClaimNodeDeleted {
		lvl = st.Terminating
	}
	lvl.Name = orUnknown(c.Status)
	return lvl
}

func claimIdentity(t *text, c diagnose.NodeClaimReport, taken time.Time) {
	t.header("NodeClaim")
	kind := c.NodeClassKind
	if kind == "" {
		kind = "EC2NodeClass"
	}
	created := "unknown"
	if !c.Created.IsZero() {
		created = c.Created.UTC().Format(time.RFC3339) + " (" + age(taken, c.Created) + " ago)"
	}
	t.kvs(indent, []kv{
		{"Name", c.Name},
		{"NodePool", orUnknown(c.NodePool)},
		{kind, orUnknown(c.NodeClass)},
		{"Created", created},
		{"Status", claimStatusText(c.Status)},
		{"Provider ID", orNone(c.ProviderID)},
	})
}

// claimStatusText says what a NodeClaim's status means for its Node.
func claimStatusText(status string) string {
	why := map[string]string{
		diagnose.ClaimLaunchFailed:  "Karpenter could not launch its instance",
		diagnose.ClaimLaunching:     "Karpenter is launching its instance",
		diagnose.ClaimNotRegistered: "its instance launched, but no Node registered for it in time",
		diagnose.ClaimRegistering:   "its instance launched; its Node has not registered yet",
		diagnose.ClaimNodeDeleted:   "its Node registered and is gone",
		diagnose.ClaimDeleting:      "Karpenter is deleting it",
	}[status]
	if why == "" {
		return orUnknown(status)
	}
	return status + ": " + why
}

func conditions(t *text, c diagnose.NodeClaimReport, taken time.Time) {
	t.header("Conditions")
	if len(c.Conditions) == 0 {
		t.para(indent, "none written yet")
		return
	}
	tw, sw := 0, 0
	for _, cd := range c.Conditions {
		tw, sw = max(tw, min(width(cd.Type), maxColumn)), max(sw, min(width(cd.Status), maxColumn))
	}
	for _, cd := range c.Conditions {
		head := pad(t.st.Strong.Render(cd.Type), tw) + "  " + pad(orUnknown(cd.Status), sw) + "  "
		rest := cd.Reason
		if !cd.LastTransitionTime.IsZero() {
			rest += " (since " + age(taken, cd.LastTransitionTime) + " ago)"
		}
		t.hanging(indent, head, strings.TrimSpace(rest))
		if cd.Message != "" {
			t.para(indent+4, cd.Message)
		}
	}
}

func claimInstance(t *text, in *diagnose.ClaimInstance, taken time.Time) {
	t.header("Instance")
	if in == nil {
		t.para(indent, "none known: the launch has not named one, or DescribeInstances did not return it")
		return
	}
	launched := "unknown"
	if !in.LaunchTime.IsZero() {
		launched = in.LaunchTime.UTC().Format(time.RFC3339) + " (" + age(taken, in.LaunchTime) + " ago)"
	}
	t.kvs(indent, []kv{
		{"ID", in.ID},
		{"State", orUnknown(in.State)},
		{"Instance type", orUnknown(in.Type)},
		{"Zone", orUnknown(in.Zone)},
		{"Subnet", orUnknown(in.SubnetID)},
		{"Private IP", orUnknown(in.PrivateIP)},
		{"Launched", launched},
	})
}

// events writes the claim's newest events, oldest of them first.
func events(t *text, c diagnose.NodeClaimReport, taken time.Time) {
	list := c.Events
	title := "Events"
	if len(list) > maxEvents {
		title = fmt.Sprintf("Events (the newest %d of %d)", maxEvents, len(list))
		list = list[len(list)-maxEvents:]
	}
	t.header(title)
	if len(list) == 0 {
		t.para(indent, "none")
		return
	}
	tw := 0
	for _, e := range list {
		tw = max(tw, min(width(orUnknown(e.Type)), maxColumn))
	}
	for _, e := range list {
		rest := t.st.Strong.Render(e.Reason)
		var when []string
		if e.Count > 1 {
			when = append(when, "x"+strconv.Itoa(int(e.Count)))
		}
		if !e.Last.IsZero() {
			when = append(when, age(taken, e.Last)+" ago")
		}
		if len(when) > 0 {
			rest += " (" + strings.Join(when, ", ") + ")"
		}
		t.hanging(indent, pad(orUnknown(e.Type), tw)+"  ", rest)
		if e.Message != "" {
			t.para(indent+4, e.Message)
		}
	}
}

// age renders how long before taken at was, rounded as kubectl does: "45s", "9m", "2h5m",
// "3d"; "unknown" when taken is not known.
func age(taken, at time.Time) string {
	if taken.IsZero() {
		return "unknown"
	}
	d := taken.Sub(at)
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return strconv.Itoa(h) + "h"
		}
		return strconv.Itoa(h) + "h" + strconv.Itoa(m) + "m"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}
