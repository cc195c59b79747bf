#!/usr/bin/env bash
# Release packaging check, offline but for the Go module proxy:
#   1. build GoReleaser and krew from the module proxy, once (cached in ~/.cache/karpnet-tools);
#   2. goreleaser check, then goreleaser release --snapshot into a temporary dist directory;
#   3. krewcheck: the six archives, plugins/krew.yaml, and GoReleaser's krew manifest agree;
#   4. validate-krew-manifest on the checked-in, the generated and the filled-in manifest;
#   5. krew installs the filled-in manifest from the snapshot archives (every platform), and on
#      linux/amd64 `kubectl karpnet version` and `kubectl karpnet demo check` run through kubectl;
#   6. the container image: hack/image writes an OCI layout of the linux/amd64 and linux/arm64
#      binaries (no daemon, no base image, no registry), validates it, runs the host's binary
#      (version, demo serve until SIGTERM) and pushes it to a registry on 127.0.0.1.
# Nothing is published and nothing is left in the repository.
#
#   bash hack/release/check.sh           KEEP_WORK=1 keeps the temporary directory
set -euo pipefail

GORELEASER_VERSION=v2.15.1
KREW_VERSION=v0.4.3

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# shellcheck source=hack/tools.sh
source "$root/hack/tools.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/karpnet-release.XXXXXX")
dist=$work/dist

t0=$(date +%s)
ts=$t0
step_name=""
cleanup() {
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "release check FAILED in step \"$step_name\" (exit $rc); see the messages above" >&2
	fi
	if [ "${KEEP_WORK:-}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# step ends the current step (printing its time) and starts the next.
step() {
	local now
	now=$(date +%s)
	[ -n "$step_name" ] && echo "   ($step_name: $((now - ts))s)"
	ts=$now
	step_name=$1
	echo "== $1"
}

fail() {
	echo "release check: $*" >&2
	exit 1
}

step "tools"
gr_dir=$tools/goreleaser-$GORELEASER_VERSION
krew_dir=$tools/krew-$KREW_VERSION
ensure_tool "$gr_dir" "$GORELEASER_VERSION" github.com/goreleaser/goreleaser/v2 || fail "building GoReleaser failed"
ensure_tool "$krew_dir" "$KREW_VERSION" sigs.k8s.io/krew/cmd/krew sigs.k8s.io/krew/cmd/validate-krew-manifest || fail "building krew failed"
goreleaser=$gr_dir/goreleaser
validate=$krew_dir/validate-krew-manifest
mkdir -p "$work/bin"
ln -s "$krew_dir/krew" "$work/bin/kubectl-krew"
command -v kubectl >/dev/null || fail "kubectl is not on PATH; install kubectl 1.26 or newer"

step "goreleaser check"
[ -x kubectl_complete-karpnet ] || fail "kubectl_complete-karpnet is missing or not executable at the repository root; the archives ship it"
"$goreleaser" check .goreleaser.yaml || fail "goreleaser check rejected .goreleaser.yaml (exit 1: invalid, 2: deprecated properties)"

step "goreleaser release --snapshot"
# The checked-in configuration with dist/ moved to the temporary directory.
cp .goreleaser.yaml "$work/goreleaser.yaml"
printf '\ndist: %s\n' "$dist" >>"$work/goreleaser.yaml"
# GoReleaser reads the commit only when the repository has a remote; lend it one, in the
# environment only, when the checkout has none.
if ! git ls-remote --get-url >/dev/null 2>&1; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url
	export GIT_CONFIG_VALUE_0=https://github.com/karpnet/kubectl-karpnet.git
fi
if ! "$goreleaser" release --snapshot --clean --config "$work/goreleaser.yaml" >"$work/goreleaser.log" 2>&1; then
	tail -n 40 "$work/goreleaser.log" >&2
	fail "goreleaser release --snapshot failed; the log's end is above"
fi
grep -E 'took|release succeeded' "$work/goreleaser.log" | tail -n 3 || true

step "container image (OCI layout)"
[ -f /etc/ssl/certs/ca-certificates.crt ] || fail "/etc/ssl/certs/ca-certificates.crt is missing: apt-get install ca-certificates (the image ships it for TLS to EC2)"
image_version=v$(grep -o '"version": *"[^"]*"' "$dist/metadata.json" | head -n 1 | sed 's/.*"\([^"]*\)"$/\1/')
(cd hack/image && go run . build -dist "$dist" -out "$work/image") || fail "hack/image could not build the OCI image from $dist"
(cd hack/image && go run . verify -layout "$work/image" -version "$image_version") ||
	fail "the OCI image in $work/image is wrong; see above (KEEP_WORK=1 keeps it)"

step "krewcheck"
mkdir -p "$work/manifest"
go run ./hack/release/krewcheck -dist "$dist" -out "$work/manifest/karpnet.yaml" 2>&1 ||
	fail "the archives or the krew manifests are wrong; see above"

step "validate-krew-manifest"
# validate-krew-manifest wants the file named after the plugin (karpnet.yaml, as in krew-index);
# the checked-in copy lives at plugins/krew.yaml, so validate it under that name.
mkdir -p "$work/checked-in"
cp plugins/krew.yaml "$work/checked-in/karpnet.yaml"
for m in "$work/checked-in/karpnet.yaml" "$dist/krew/karpnet.yaml" "$work/manifest/karpnet.yaml"; do
	"$validate" -manifest "$m" -skip-install >"$work/validate.log" 2>&1 || {
		cat "$work/validate.log" >&2
		fail "validate-krew-manifest $KREW_VERSION rejected $m"
	}
	echo "valid: $m"
done

step "krew install (every platform)"
manifest=$work/manifest/karpnet.yaml
version=$(sed -n 's/^  version: //p' "$manifest")
commit=$(git rev-parse HEAD)
export PATH="$work/bin:$PATH"
for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
	os=${target%/*} arch=${target#*/} ext=tar.gz bin=kubectl-karpnet
	[ "$os" = windows ] && ext=zip bin=kubectl-karpnet.exe
	archive=$dist/kubectl-karpnet_${version}_${os}_${arch}.$ext
	krew_root=$work/krew-$os-$arch
	KREW_ROOT=$krew_root KREW_OS=$os KREW_ARCH=$arch \
		kubectl krew install --manifest="$manifest" --archive="$archive" >"$work/install.log" 2>&1 || {
		cat "$work/install.log" >&2
		fail "krew $KREW_VERSION could not install $archive for $target"
	}
	store=$krew_root/store/karpnet/$version
	for f in "$bin" LICENSE README.md kubectl_complete-karpnet; do
		[ -f "$store/$f" ] || fail "krew installed no $f for $target (in $store)"
	done
	echo "installed $target: $(cd "$store" && echo *)"
done

step "kubectl karpnet (krew-installed linux/amd64)"
export KREW_ROOT=$work/krew-linux-amd64
export PATH="$KREW_ROOT/bin:$PATH"
[ "$(command -v kubectl-karpnet)" = "$KREW_ROOT/bin/kubectl-karpnet" ] ||
	fail "kubectl-karpnet resolves to $(command -v kubectl-karpnet), not krew's $KREW_ROOT/bin/kubectl-karpnet"
[ -f "$KREW_ROOT/receipts/karpnet.yaml" ] || fail "krew wrote no install receipt for karpnet"

out=$(kubectl karpnet version) || fail "kubectl karpnet version failed: $out"
echo "$out"
re='^karpnet [^ ]+ \(commit [0-9a-f]{40}, built [0-9]{4}-[0-9]{2}-[0-9]{2}T[^,]+, go[0-9.]+, linux/amd64\)$'
[[ $out == "karpnet $version (commit $commit, built "* && $out =~ $re ]] || fail "kubectl karpnet version printed \"$out\"; want version $version and commit $commit injected"
json=$(kubectl karpnet version -o json) || fail "kubectl karpnet version -o json failed"
grep -q "\"version\": \"$version\"" <<<"$json" || fail "kubectl karpnet version -o json lacks version $version: $json"

set +e
out=$(kubectl karpnet demo check 2>&1)
rc=$?
set -e
summary=$(grep -E '^[0-9]+ nodes?: ' <<<"$out" | tail -n 1)
echo "demo check: exit $rc; $summary"
[ "$rc" = 1 ] || fail "kubectl karpnet demo check exited $rc, want 1 (the demo cluster has critical findings)"
[[ $summary =~ [1-9][0-9]*\ with\ criticals ]] ||
	fail "kubectl karpnet demo check printed no summary line with criticals; its output ends: ${out: -400}"

# kubectl (1.26+) completes plugin arguments through kubectl_complete-karpnet on PATH.
cp "$KREW_ROOT/store/karpnet/$version/kubectl_complete-karpnet" "$work/bin/"
comp=$(kubectl_complete-karpnet '' 2>/dev/null) || fail "kubectl_complete-karpnet '' failed: $comp"
grep -q '^demo' <<<"$comp" && grep -qE '^:[0-9]+$' <<<"$comp" ||
	fail "kubectl_complete-karpnet '' did not list the demo command with a completion directive: $comp"
echo "completion: $(grep -cv '^:' <<<"$comp") candidates for kubectl karpnet <TAB>"

step "done"
echo "release check passed in $(($(date +%s) - t0))s"
