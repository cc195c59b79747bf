# Shared by the hack/ scripts (source it): builds pinned Go tools from the module proxy once
# and caches them under $tools (KARPNET_TOOLS_DIR, default ~/.cache/karpnet-tools), one
# directory per tool and version.

tools=${KARPNET_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/karpnet-tools}

# binary_name PACKAGE prints the name go install gives PACKAGE's binary (a major-version
# suffix such as /v2 is not part of it).
binary_name() {
	local name=${1##*/}
	[[ $name =~ ^v[0-9]+$ ]] && name=$(basename "$(dirname "$1")")
	echo "$name"
}

# ensure_tool DIR MODULE_VERSION PACKAGE... builds the packages into DIR unless all are there.
ensure_tool() {
	local dir=$1 version=$2 missing=0 pkg tmp log
	shift 2
	for pkg in "$@"; do [ -x "$dir/$(binary_name "$pkg")" ] || missing=1; done
	if [ "$missing" = 0 ]; then
		echo "cached: $dir"
		return
	fi
	mkdir -p "$tools"
	tmp=$(mktemp -d "$tools/.build.XXXXXX")
	log=$tmp.log
	echo "building $* at $version from the Go module proxy into $dir"
	if ! (cd "$tmp" && GOBIN="$tmp" go install "${@/%/@$version}") >"$log" 2>&1; then
		rm -rf "$tmp"
		tail -n 20 "$log" >&2
		rm -f "$log"
		echo "could not build $* @$version; check the Go module proxy (GOPROXY=$(go env GOPROXY)) and retry" >&2
		return 1
	fi
	rm -f "$log"
	rm -rf "$dir"
	mv "$tmp" "$dir"
}
