package diagnose

// The check catalogue: what each check means. Each check's Spec is declared next to the Check
// that pairs it with its Run, in the check's file; the family lists (coreChecks, cniChecks, ...,
// joinChecks, concatenated by Checks) give the catalogue order. The Specs are the one source of
// the catalogue table of docs/checks.md, of `kubectl karpnet explain`, of completion, of the
// SARIF rules and of the terminal UI's help on a finding.

// Family groups checks in the catalogue, docs/checks.md and `kubectl karpnet explain`.
type Family string

// The families, in catalogue order.
const (
	FamilyCore   Family = "core"
	FamilyVPCCNI Family = "vpc-cni"
	// FamilyNodeAgents: what runs on the nodes besides aws-node's IPAM: Cilium, the startup
	// taints of CNI agents, the network policy agent and the EKS node monitoring agent.
	FamilyNodeAgents  Family = "node-agents"
	FamilyEFA         Family = "efa"
	FamilyPlacement   Family = "placement"
	FamilyConsistency Family = "consistency"
	FamilyAutoMode    Family = "auto-mode"
	// FamilyJoin: nodes that never joined, the node subnets' way out, and instances no
	// NodeClaim names.
	FamilyJoin Family = "join"
)

// Spec is a check's catalogue entry: what it means, for people. Its ID is the stable
// kebab-case ID used in findings, --only and --skip; the texts are Markdown.
type Spec struct {
	ID string
	// Severity is what the check raises by default (the worst it raises); Lower lists the
	// others it may raise.
	Severity Severity
	Lower    []Severity
	Family   Family
	// Examines lists the kinds of subject the check looks at (SubjectNode, SubjectSubnet, ...):
	// every finding it raises is about one of them (Finding.SubjectKind). CI reports list one
	// test case per subject of these kinds.
	Examines []string
	// Title is a short description for listings and completion.
	Title string
	// FiresWhen says when it fires, NotOn what it deliberately leaves alone, Why why that
	// matters on EKS, Remedy what to do in short; each finding carries its own exact remedy.
	FiresWhen, NotOn, Why, Remedy string
	// Scope says, for a check whose remedy commands change an object other nodes share (a
	// NodePool, an EC2NodeClass, a security group, a route table, a network ACL, a subnet, the
	// VPC or aws-node), which change it proposes, why that one rather than a wider one, and
	// whom it reaches; each command's Affects names the nodes. "" for a check whose commands
	// change only the node, its NodeClaim, its instance or an interface, or read.
	Scope string
	// Sources are the upstream code, issues and documents behind the check's rules.
	Sources []string
	// Verified names, for each upstream fact the check encodes, the file of the ledger's pinned
	// version it was read in (ledger.go).
	Verified []Verified
	// Needs names the snapshot sources (snapshot.Source* constants) without which the check
	// cannot judge at all: when the snapshot has a gap for one of them, Analyze does not run the
	// check and lists it in Report.NotRun. A source the check only needs for some subjects or
	// some branches is not listed; the check handles that gap itself.
	Needs []string
	// Grouped is true for a check whose findings can come by the hundred (a cluster can leak
	// ENIs in bulk): text output shows the first few of them in full and names the rest's
	// subjects in one line; -o wide, JSON and every other view show each one.
	Grouped bool
}

// SpecOf returns the catalogue entry of check id; false for an ID no built-in check has.
func SpecOf(id string) (*Spec, bool) {
	for _, c := range Checks() {
		if c.ID == id {
			return c.Spec, true
		}
	}
	return nil, false
}

// Severities returns every severity the check may raise, worst first.
func (s *Spec) Severities() []Severity {
	out := []Severity{s.Severity}
	for _, l := range s.Lower {
		if l != s.Severity {
			out = append(out, l)
		}
	}
	return out
}
