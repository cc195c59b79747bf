package printer

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"

	"io"
	"net/url"
	"strings"

	"github.com/karpnet/kubectl-karpnet/pkg/diagnose"
	"github.com/karpnet/kubectl-karpnet/pkg/kinds"
)

// SARIF 2.1.0 constants: the schema the log names, and karpnet's home.
const (
	sarifSchema      = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion     = "2.1.0"
	sarifInformation = "https://github.com/karpnet/kubectl-karpnet"
	// sarifFingerprint is the partialFingerprints key of a finding's identity: its check ID,
	// node and resource, which stay the same from run to run while the problem lasts.
	sarifFingerprint = "karpnetFinding/v1"
)

// The subset of the SARIF 2.1.0 object model karpnet writes.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool         `json:"tool"`
		Results    []sarifResult     `json:"results"`
		Properties map[string]string `json:"properties,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string             `json:"id"`
		ShortDescription     sarifMessage       `json:"shortDescription"`
		FullDescription      sarifMessage       `json:"fullDescription"`
		Help                 sarifMessage       `json:"help"`
		DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
		Properties           sarifRuleProps     `json:"properties"`
	}
	sarifMessage struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifConfiguration struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		Family     string   `json:"family"`
		Severities []string `json:"severities"`
		Tags       []string `json:"tags"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifMessage      `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          sarifResultProps  `json:"properties"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical     `json:"physicalLocation"`
		LogicalLocations []sarifLogicalLoc `json:"logicalLocations"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifLogicalLoc struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifResultProps struct {
		Severity string `json:"severity"`
		Node     string `json:"node,omitempty"`
		Resource string `json:"resource,omitempty"`
		Remedy   string `json:"remedy"`
		// Commands are the remedy's commands, each rendered for a POSIX shell.
		Commands []string `json:"commands,omitempty"`
	}
)

// sarifLevel maps a severity to a SARIF level: critical is error, warning is warning, info is note.
func sarifLevel(s diagnose.Severity) string {
	switch s {
	case diagnose.Critical:
		return "error"
	case diagnose.Warning:
		return "warning"
	}
	return "note"
}

// writeSARIF writes r as a SARIF 2.1.0 log of one run: every check of the catalogue as a rule,
// every finding as a result at its severity's level (--fail-on filters nothing: it only sets
// the exit code). Each result is located at its subject, as a logical location (node/NAME,
// subnet/ID, ...) and as a relative artifact URI of the same name, and fingerprinted by its
// check ID, node and resource so that code scanning matches it across runs.
func writeSARIF(w io.Writer, r diagnose.Report, ci CI) error {
	checks := diagnose.Checks()
	index := map[string]int{}
	rules := make([]sarifRule, len(checks))
	for i, c := range checks {
		index[c.ID] = i
		rules[i] = sarifRuleOf(c)
	}
	run := sarifRun{
		Tool:    sarifTool{Driver: sarifDriver{Name: "karpnet", Version: ci.Version, InformationURI: sarifInformation, Rules: rules}},
		Results: []sarifResult{},
	}
	props := map[string]string{"context": r.Context, "cluster": r.Cluster, "region": r.Region}
	if !r.Taken.IsZero() {
		props["taken"] = taken(r.Taken)
	}
	for k, v := range props {
		if v == "" {
			delete(props, k)
		}
	}
	if len(props) > 0 {
		run.Properties = props
	}
	for _, f := range r.Findings {
		run.Results = append(run.Results, sarifResultOf(f, index[f.ID]))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := encodeJSON(bw, sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}, "", "  "); err != nil {
		return err
	}
	return writeErr(bw.Flush())
}

// sarifRuleOf is check c as a SARIF rule, its texts from the catalogue.
func sarifRuleOf(c diagnose.Check) sarifRule {
	d := Docs([]diagnose.Check{c})[0]
	var text, md []string
	for _, f := range docFields(d) {
		text = append(text, f[0]+": "+plainMarkdown(f[1]))
		md = append(md, "**"+f[0]+":** "+f[1])
	}
	if len(d.Sources) > 0 {
		md = append(md, "**Sources:**\n\n- "+strings.Join(d.Sources, "\n- "))
	}
	return sarifRule{
		ID:                   c.ID,
		ShortDescription:     sarifMessage{Text: plainMarkdown(c.Title)},
		FullDescription:      sarifMessage{Text: "Fires when " + plainMarkdown(c.FiresWhen) + ". Why it matters: " + plainMarkdown(c.Why) + "."},
		Help:                 sarifMessage{Text: strings.Join(text, "\n\n"), Markdown: strings.Join(md, "\n\n")},
		DefaultConfiguration: sarifConfiguration{Level: sarifLevel(c.Severity)},
		Properties: sarifRuleProps{
			Family: string(c.Family), Severities: d.Severities,
			Tags: []string{"kubernetes", "karpenter", "eks", "networking", string(c.Family)},
		},
	}
}

// sarifResultOf is finding f, of the rule at ruleIndex, as a SARIF result.
func sarifResultOf(f diagnose.Finding, ruleIndex int) sarifResult {
	text := f.Message
	if f.Remedy != "" {
		text += "\nRemedy: " + f.Remedy
	}
	if cmds := f.RemedyCommands(); cmds != "" {
		text += "\n" + cmds
	}
	logical := []sarifLogicalLoc{subjectLocation(f.Subject(), f.SubjectKind())}
	if f.Node != "" && f.Resource != "" && f.Resource != f.Subject() {
		kind, _, _ := kinds.Split(f.Resource)
		logical = append(logical, subjectLocation(f.Resource, kind))
	}
	key := f.Key()
	identity := key.ID + "\x00" + key.Node + "\x00" + key.Resource
	if f.Context != "" {
		// One problem in two clusters is two alerts; a single cluster's keep their fingerprints.
		identity += "\x00" + f.Context
		logical = append([]sarifLogicalLoc{{Name: f.Context, FullyQualifiedName: "context/" + f.Context, Kind: "context"}}, logical...)
	}
	sum := sha256.Sum256([]byte(identity))
	return sarifResult{
		RuleID: f.ID, RuleIndex: ruleIndex, Level: sarifLevel(f.Severity),
		Message: sarifMessage{Text: text},
		Locations: []sarifLocation{{
			PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: subjectURI(f)}},
			LogicalLocations: logical,
		}},
		PartialFingerprints: map[string]string{sarifFingerprint: hex.EncodeToString(sum[:])},
		Properties: sarifResultProps{Severity: f.Severity.String(), Node: f.Node, Resource: f.Resource, Remedy: f.Remedy,
			Commands: renderedCommands(f.Commands)},
	}
}

// subjectLocation names subject ref (kind/name, or a source) as a logical location.
func subjectLocation(ref, kind string) sarifLogicalLoc {
	name := ref
	if k, n, ok := kinds.Split(ref); ok && (k == kind || kinds.SubjectOf(k) == kind) {
		name = n
	}
	return sarifLogicalLoc{Name: name, FullyQualifiedName: ref, Kind: kind}
}

// subjectURI is the finding's subject as a relative URI reference: its kind, then each part of
// its name escaped, e.g. node/ip-10-0-1-10.us-west-2.compute.internal or
// source/ec2:DescribeSubnets (kind first, so no part reads as a URI scheme).
func subjectURI(f diagnose.Finding) string {
	ref := f.Subject()
	if f.SubjectKind() == diagnose.SubjectSource {
		ref = diagnose.SubjectSource + "/" + ref
	}
	parts := strings.Split(ref, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	if f.Context != "" {
		// context/NAME/node/..., the context one escaped part whatever it holds.
		parts = append([]string{"context", url.PathEscape(f.Context)}, parts...)
	}
	return strings.Join(parts, "/")
}

// renderedCommands renders each command for a POSIX shell; nil when there are none.
func renderedCommands(cmds []diagnose.Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.String())
	}
	return out
}
