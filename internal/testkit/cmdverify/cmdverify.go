package cmdverify

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Command is one command of a corpus: where it came from, its argument vector and the
// Kubernetes objects it is about, as manifests built from the snapshot its finding came from.
type Command struct {
	// Source is the corpus: "demo", "unit" or "e2e".
	Source string `json:"source"`
	// Origin names the finding: the cluster or test case and the check's ID.
	Origin string `json:"origin"`
	// Argv is the program and its arguments.
	Argv []string `json:"argv"`
	// ReadOnly is the finding's claim that the command changes nothing.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Objects are the manifests of the objects the command targets (kubectl only).
	Objects []map[string]any `json:"objects,omitempty"`
	// ObjectsError says why an object the command targets could not be built.
	ObjectsError string `json:"objectsError,omitempty"`
	// Snapshot is the file of the snapshot the finding came from, for a `kubectl karpnet`
	// command to read with --snapshot; "" when it runs against the live cluster.
	Snapshot string `json:"snapshot,omitempty"`
}

// Key identifies a command and what it runs against, to run each distinct one once: a
// patch's outcome depends on its object's fields, every other kubectl command's only on
// whether its objects exist (and a plugin command's on its snapshot).
func (c Command) Key() string {
	var against any = c.Objects
	if c.Program() == "kubectl" && Verb(c.Argv) != "patch" {
		against = []any{len(c.Objects), c.ObjectsError, c.Snapshot}
	}
	b, _ := json.Marshal([]any{c.Argv, against})
	return string(b)
}

// Program is the command's program ("kubectl", "aws"), "" when Argv is empty.
func (c Command) Program() string {
	if len(c.Argv) == 0 {
		return ""
	}
	return c.Argv[0]
}

// ReadCorpus decodes the JSON lines of a corpus file.
func ReadCorpus(r io.Reader) ([]Command, error) {
	var out []Command
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c Command
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("corpus line %d: %w", n, err)
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// Ref is a Kubernetes object a kubectl command is about.
type Ref struct {
	// Kind is the object's kind, e.g. "Node", "NodePool", "ConfigMap".
	Kind string
	// Namespace is "" for cluster-scoped kinds.
	Namespace, Name string
}

func (r Ref) String() string {
	if r.Namespace != "" {
		return r.Kind + " " + r.Namespace + "/" + r.Name
	}
	return r.Kind + " " + r.Name
}

// kubectlValueFlags are the kubectl flags the remedies use that take a value in the next
// argument; every other argument starting with "-" stands alone (or carries "=value").
var kubectlValueFlags = map[string]bool{
	"-n": true, "--namespace": true, "-p": true, "--patch": true, "--type": true, "-l": true, "--selector": true,
	"--field-selector": true, "-o": true, "--output": true, "-c": true, "--container": true, "--since": true,
	"--tail": true, "-f": true, "--filename": true, "--grace-period": true, "--timeout": true, "--context": true,
	"--kubeconfig": true, "--from-literal": true, "--from-file": true, "--patch-file": true, "--subresource": true,
	"--pod-selector": true, "--all-containers": false, "--since-time": true, "--containers": true, "-e": true, "--env": true,
}

// kubectlArgs splits kubectl's arguments (without the program) into positional arguments
// and the namespace a -n or --namespace flag names.
func kubectlArgs(args []string) (positional []string, namespace string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		if !hasValue && kubectlValueFlags[name] && i+1 < len(args) {
			value = args[i+1]
			i++
		}
		if name == "-n" || name == "--namespace" {
			namespace = value
		}
	}
	return positional, namespace
}

// kinds maps the resource names kubectl accepts (plural, singular, short) to the kinds the
// remedies target.
var kinds = map[string]string{
	"node": "Node", "nodes": "Node", "no": "Node",
	"nodeclaim": "NodeClaim", "nodeclaims": "NodeClaim",
	"nodepool": "NodePool", "nodepools": "NodePool",
	"ec2nodeclass": "EC2NodeClass", "ec2nodeclasses": "EC2NodeClass", "ec2nc": "EC2NodeClass",
	"nodeclass": "NodeClass", "nodeclasses": "NodeClass",
	"configmap": "ConfigMap", "configmaps": "ConfigMap", "cm": "ConfigMap",
	"daemonset": "DaemonSet", "daemonsets": "DaemonSet", "ds": "DaemonSet",
	"deployment": "Deployment", "deployments": "Deployment", "deploy": "Deployment",
	"pod": "Pod", "pods": "Pod", "po": "Pod",
	"eniconfig": "ENIConfig", "eniconfigs": "ENIConfig",
}

// kindOf returns the kind of a resource argument ("nodepool", "nodepools.karpenter.sh"),
// the argument itself when it is not one the remedies use.
func kindOf(resource string) string {
	base, _, _ := strings.Cut(strings.ToLower(resource), ".")
	if k, ok := kinds[base]; ok {
		return k
	}
	return resource
}

// namespaced reports whether kind is a namespaced kind.
func namespaced(kind string) bool {
	switch kind {
	case "ConfigMap", "DaemonSet", "Deployment", "Pod":
		return true
	}
	return false
}

// Verb returns the kubectl subcommand of argv ("patch", "delete", ...), "" when there is none.
func Verb(argv []string) string {
	if len(argv) < 2 {
		return ""
	}
	pos, _ := kubectlArgs(argv[1:])
	if len(pos) == 0 {
		return ""
	}
	return pos[0]
}

// Targets returns the objects a kubectl command (argv with its program) is about: the
// KIND NAME or KIND/NAME of get, describe, delete, patch, label, annotate, set and the
// like, the node of drain, cordon and uncordon, the TYPE/NAME of logs. A list (get without
// a name, get -l) and a create target nothing that must exist.
func Targets(argv []string) []Ref {
	if len(argv) < 2 || argv[0] != "kubectl" {
		return nil
	}
	pos, ns := kubectlArgs(argv[1:])
	if len(pos) == 0 {
		return nil
	}
	verb, rest := pos[0], pos[1:]
	if verb == "set" && len(rest) > 0 { // kubectl set env|image|resources KIND NAME
		rest = rest[1:]
	}
	ref := func(kind, name string) Ref {
		r := Ref{Kind: kindOf(kind), Name: name}
		if namespaced(r.Kind) {
			r.Namespace = ns
			if r.Namespace == "" {
				r.Namespace = "default"
			}
		}
		return r
	}
	switch verb {
	case "create", "apply", "run", "explain", "version", "api-resources", "karpnet":
		// karpnet: the plugin reads the cluster (or a snapshot), no object in particular.
		return nil
	case "drain", "cordon", "uncordon":
		var out []Ref
		for _, n := range rest {
			out = append(out, ref("node", n))
		}
		return out
	case "logs":
		if len(rest) == 0 {
			return nil
		}
		if kind, name, ok := strings.Cut(rest[0], "/"); ok {
			return []Ref{ref(kind, name)}
		}
		return []Ref{ref("pod", rest[0])}
	}
	if len(rest) == 0 {
		return nil
	}
	if kind, name, ok := strings.Cut(rest[0], "/"); ok {
		out := []Ref{ref(kind, name)}
		for _, r := range rest[1:] {
			if k, n, ok := strings.Cut(r, "/"); ok {
				out = append(out, ref(k, n))
			}
		}
		return out
	}
	var out []Ref
	for _, name := range rest[1:] {
		if strings.Contains(name, "=") { // label and annotate: KEY=VALUE after the names
			break
		}
		out = append(out, ref(rest[0], name))
	}
	return out
}

// Creates returns the object a `kubectl create KIND NAME` command makes, which must not exist
// before it runs; nil for every other command.
func Creates(argv []string) []Ref {
	if len(argv) < 2 || argv[0] != "kubectl" {
		return nil
	}
	pos, ns := kubectlArgs(argv[1:])
	if len(pos) < 3 || pos[0] != "create" {
		return nil
	}
	r := Ref{Kind: kindOf(pos[1]), Name: pos[2]}
	if namespaced(r.Kind) {
		r.Namespace = ns
		if r.Namespace == "" {
			r.Namespace = "default"
		}
	}
	return []Ref{r}
}
