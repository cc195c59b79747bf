#!/usr/bin/env bash
# The development gate: formatting, imports, vet, staticcheck, the binary's dependencies and the
# generated parts of README.md and docs/*.md.
#
#   bash hack/lint.sh          check (CI runs this)
#   FIX=1 bash hack/lint.sh    rewrite formatting and imports in place, then check
#
# goimports and staticcheck are built from the Go module proxy once, at the versions below,
# and cached in ~/.cache/karpnet-tools (KARPNET_TOOLS_DIR), like the release tools.
set -euo pipefail

GOIMPORTS_VERSION=v0.52.0     # golang.org/x/tools
STATICCHECK_VERSION=v0.8.2    # honnef.co/go/tools
MODULE=github.com/karpnet/kubectl-karpnet

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=hack/tools.sh
source hack/tools.sh

goimports_dir=$tools/goimports-$GOIMPORTS_VERSION
staticcheck_dir=$tools/staticcheck-$STATICCHECK_VERSION
ensure_tool "$goimports_dir" "$GOIMPORTS_VERSION" golang.org/x/tools/cmd/goimports
ensure_tool "$staticcheck_dir" "$STATICCHECK_VERSION" honnef.co/go/tools/cmd/staticcheck

mapfile -t files < <(git ls-files '*.go')
failed=0

echo "== gofmt"
[ "${FIX:-}" = 1 ] && gofmt -w "${files[@]}"
out=$(gofmt -l "${files[@]}")
if [ -n "$out" ]; then
	echo "gofmt would change these files (FIX=1 bash hack/lint.sh rewrites them):"
	echo "$out"
	failed=1
fi

echo "== goimports -local $MODULE"
[ "${FIX:-}" = 1 ] && "$goimports_dir/goimports" -local "$MODULE" -w "${files[@]}"
out=$("$goimports_dir/goimports" -local "$MODULE" -l "${files[@]}")
if [ -n "$out" ]; then
	echo "goimports would change these files: standard library, then other modules, then $MODULE, as"
	echo "three groups (FIX=1 bash hack/lint.sh rewrites them):"
	echo "$out"
	failed=1
fi

echo "== go vet"
go vet ./... || failed=1
# hack/image is a module of its own (it keeps go-containerregistry out of the plugin's go.mod).
(cd hack/image && go vet ./...) || failed=1

echo "== staticcheck"
"$staticcheck_dir/staticcheck" ./... || failed=1
(cd hack/image && "$staticcheck_dir/staticcheck" ./...) || failed=1

echo "== binary dependencies"
# Go's plugin package makes the linker keep every exported function of every package (the
# whole EC2 API among them): a binary of 150 MB instead of 50, and 50 MiB more mapped per run.
# cli-runtime's ConfigFlags and resource builder bring it in through kustomize.
if go list -deps ./cmd/kubectl-karpnet | grep -qx plugin; then
	echo "cmd/kubectl-karpnet links Go's plugin package; find the import with: go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./cmd/kubectl-karpnet | grep -w plugin" >&2
	failed=1
fi

# Packages only tests, benchmarks and hack tools use live under internal/testkit; the plugin
# links none of them (no simulator, misbehaving server or test helper in the shipped binary).
if kits=$(go list -deps ./cmd/kubectl-karpnet | grep "^$MODULE/internal/testkit/"); then
	echo "cmd/kubectl-karpnet links test kits; move what the product needs out of internal/testkit:" >&2
	echo "$kits" >&2
	failed=1
fi

echo "== generated docs (README.md, docs/*.md)"
go test -count=1 ./hack/readme || failed=1

if [ "$failed" != 0 ]; then
	echo "lint: failed; see the messages above" >&2
	exit 1
fi
echo "lint: ok"
