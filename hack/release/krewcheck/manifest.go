package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"
)

const (
	apiVersion  = "krew.googlecontainertools.github.com/v1alpha2"
	pluginName  = "karpnet"
	projectName = "kubectl-karpnet"
	releaseURL  = "https://github.com/karpnet/kubectl-karpnet/releases/download/"
	// placeholderSHA marks a platform whose release has not been built yet.
	placeholderSHA = "0000000000000000000000000000000000000000000000000000000000000000"
)

// target is one OS and architecture a release ships.
type target struct{ OS, Arch string }

// targets lists the release's platforms in manifest order.
func targets() []target {
	return []target{
		{"linux", "amd64"}, {"linux", "arm64"},
		{"darwin", "amd64"}, {"darwin", "arm64"},
		{"windows", "amd64"}, {"windows", "arm64"},
	}
}

func (t target) bin() string {
	if t.OS == "windows" {
		return projectName + ".exe"
	}
	return projectName
}

func (t target) ext() string {
	if t.OS == "windows" {
		return ".zip"
	}
	return ".tar.gz"
}

// archiveName is GoReleaser's archive name for version (without its leading v) and t.
func archiveName(version string, t target) string {
	return fmt.Sprintf("%s_v%s_%s_%s%s", projectName, version, t.OS, t.Arch, t.ext())
}

// release is the part of GoReleaser's dist/metadata.json that names the build.
type release struct {
	Tag     string `json:"tag"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

func readRelease(path string) (release, error) {
	var r release
	b, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("reading GoReleaser metadata: %w; run goreleaser release first", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("parsing %s: %w", path, err)
	}
	if r.Tag == "" || r.Version == "" {
		return r, fmt.Errorf("%s names no tag or version; check the GoReleaser run", path)
	}
	if !commitPattern.MatchString(r.Commit) {
		return r, fmt.Errorf("%s names commit %q, not a git commit; GoReleaser reads it only from a git checkout with a remote", path, r.Commit)
	}
	return r, nil
}

// plugin is a krew Plugin manifest with the fields GoReleaser writes.
type plugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec spec `json:"spec"`
}

type spec struct {
	Version          string     `json:"version"`
	Homepage         string     `json:"homepage"`
	ShortDescription string     `json:"shortDescription"`
	Description      string     `json:"description"`
	Caveats          string     `json:"caveats"`
	Platforms        []platform `json:"platforms"`
}

type platform struct {
	Selector struct {
		MatchLabels map[string]string `json:"matchLabels"`
	} `json:"selector"`
	URI    string `json:"uri"`
	SHA256 string `json:"sha256"`
	Bin    string `json:"bin"`
}

func parsePlugin(b []byte) (plugin, error) {
	var p plugin
	err := yaml.UnmarshalStrict(b, &p)
	return p, err
}

// manifestTemplate is the checked-in manifest's layout; render fills it.
const manifestTemplate = `# krew plugin manifest for kubectl-karpnet: the file submitted to kubernetes-sigs/krew-index as
# plugins/krew.yaml. The sha256 values are those of the release named by spec.version; 64 zeros mean
# that release is not built yet. After goreleaser release, fill them in from dist/ with
#   go run ./hack/release/krewcheck -dist dist -write
# hack/release/check.sh keeps this file equal to the manifest GoReleaser generates and installs it,
# filled in from a snapshot build, with krew.
apiVersion: {{ .APIVersion }}
kind: Plugin
metadata:
  name: {{ .Name }}
spec:
  version: {{ .Spec.Version }}
  homepage: {{ .Spec.Homepage }}
  shortDescription: {{ .Spec.ShortDescription }}
  description: |
{{ indent .Spec.Description }}  caveats: |
{{ indent .Spec.Caveats }}  platforms:
{{- range .Spec.Platforms }}
  - selector:
      matchLabels:
        os: {{ index .Selector.MatchLabels "os" }}
        arch: {{ index .Selector.MatchLabels "arch" }}
    uri: {{ .URI }}
    sha256: "{{ .SHA256 }}"
    bin: {{ .Bin }}
{{- end }}
`

// indent indents each non-empty line of s by four spaces, for a block scalar under spec.
func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "")
}

// render writes the manifest for rel: meta's homepage, descriptions and caveats, rel's version,
// and one platform per target with its release URL and its sha256 from sums.
func render(meta spec, rel release, sums map[string]string) ([]byte, error) {
	for name, s := range map[string]string{"description": meta.Description, "caveats": meta.Caveats} {
		if !strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\n\n") {
			return nil, fmt.Errorf("spec.%s must end with exactly one newline; fix plugins/krew.yaml", name)
		}
	}
	p := plugin{APIVersion: apiVersion, Kind: "Plugin"}
	p.Metadata.Name = pluginName
	p.Spec = meta
	p.Spec.Version = "v" + rel.Version
	p.Spec.Platforms = nil
	for _, t := range targets() {
		name := archiveName(rel.Version, t)
		sum, ok := sums[name]
		if !ok {
			return nil, fmt.Errorf("no sha256 for %s; every platform needs its archive", name)
		}
		var pl platform
		pl.Selector.MatchLabels = map[string]string{"os": t.OS, "arch": t.Arch}
		pl.URI = releaseURL + rel.Tag + "/" + name
		pl.SHA256 = sum
		pl.Bin = t.bin()
		p.Spec.Platforms = append(p.Spec.Platforms, pl)
	}
	tpl := template.Must(template.New("manifest").Funcs(template.FuncMap{"indent": indent}).Parse(manifestTemplate))
	var buf bytes.Buffer
	if err := tpl.Execute(&buf, struct {
		plugin
		Name string
	}{p, p.Metadata.Name}); err != nil {
		return nil, fmt.Errorf("rendering the manifest: %w", err)
	}
	back, err := parsePlugin(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the rendered manifest does not parse (quote the offending text in plugins/krew.yaml): %w", err)
	}
	if diff := diffPlugins(p, back); diff != "" {
		return nil, fmt.Errorf("the rendered manifest reads back differently (-want +got):\n%s", diff)
	}
	return buf.Bytes(), nil
}

var (
	sha256Pattern = regexp.MustCompile(`^[a-f0-9]{64}$`)
	commitPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// sortPlatforms orders platforms as targets does, so manifests compare regardless of order.
func sortPlatforms(ps []platform) {
	rank := func(p platform) int {
		return slices.Index(targets(), target{p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]})
	}
	slices.SortStableFunc(ps, func(a, b platform) int { return rank(a) - rank(b) })
}
