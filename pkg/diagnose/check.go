package diagnose

// Check is one networking check: its catalogue entry and the code that runs it.
type Check struct {
	*Spec
	// Run returns the check's findings over the indexed snapshot. It must be pure: the same
	// Index gives the same findings. Findings leave out ID, and Severity when it is the
	// check's own: Findings stamps them.
	Run func(*Index) []Finding
}

// Findings runs the check and stamps its findings with the check's ID, and with its severity
// where Run left it unset. A check one of whose Needs is a gap of the snapshot is not run and
// finds nothing.
func (c Check) Findings(x *Index) []Finding {
	if len(c.Missing(x)) > 0 {
		return nil
	}
	out := c.Run(x)
	for i := range out {
		out[i].ID = c.ID
		if out[i].Severity == severityUnset {
			out[i].Severity = c.Severity
		}
	}
	return out
}

// Checks returns every built-in check in catalogue order: the core checks, then each family.
func Checks() []Check {
	var all []Check
	for _, family := range [][]Check{coreChecks(), cniChecks(), agentChecks(), efaChecks(), placementChecks(), consistencyChecks(), autoModeChecks(), joinChecks()} {
		all = append(all, family...)
	}
	return all
}

// CheckIDs returns the IDs of every built-in check, in catalogue order.
func CheckIDs() []string {
	var ids []string
	for _, c := range Checks() {
		ids = append(ids, c.ID)
	}
	return ids
}

// Missing returns the sources of the check's Needs the snapshot has a gap for (directly, or
// through the gap of all of EC2), in Needs order; nil when the check can run.
func (c Check) Missing(x *Index) []string {
	var out []string
	for _, source := range c.Needs {
		if x.Unavailable(source) {
			out = append(out, source)
		}
	}
	return out
}
