#!/usr/bin/env bash
# Runs every fuzz target of the repository for a fixed time each, one after the other.
#
#   bash hack/fuzz.sh                         each target for FUZZTIME (default 10s)
#   FUZZTIME=10m bash hack/fuzz.sh            longer
#   FUZZTIME=30m bash hack/fuzz.sh FuzzTUI    one target (or several, by name)
#
# FUZZMINIMIZETIME (default 2s) caps how long a new interesting input is minimised: Go's
# default of 60s spends short runs minimising the large snapshot seeds instead of fuzzing.
# A failing input is written to the target's testdata/fuzz/NAME/ and the script fails; the
# inputs found along the way stay in Go's build cache, so later runs start from them.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-10s}
minimizetime=${FUZZMINIMIZETIME:-2s}

# Every fuzz target: its package and its name.
targets=(
	"./pkg/snapshot FuzzRead"
	"./pkg/snapshot FuzzParseProviderID"
	"./pkg/snapshot FuzzIsReport"
	"./pkg/snapshot FuzzPlan"
	"./pkg/diff FuzzCompare"
	"./pkg/diagnose FuzzSnapshotFields"
	"./pkg/diagnose FuzzTransitionTime"
	"./pkg/printer FuzzPipeline"
	"./pkg/printer FuzzAppendIndented"
	"./pkg/tui FuzzTUI"
	"./pkg/serve FuzzHandler"
	"./internal/ec2xml FuzzReadInstances"
	"./internal/kubestream FuzzWithoutManagedFields"
	"./internal/kubestream FuzzKubeDecodeNode"
	"./internal/kubestream FuzzDecodeShaped"
	"./internal/kubestream FuzzReadNodeClaim"
	"./internal/kubestream FuzzStreamNodeList"
	"./internal/kubestream FuzzDecodeListStream"
	"./internal/kubestream FuzzJSONValid"
)

# A target added to the code but not to the list above fails the run.
listed=$(printf '%s\n' "${targets[@]}" | awk '{print $2}' | sort)
found=$(git grep -h -o -E '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' -- '*_test.go' |
	sed -E 's/^func (Fuzz[A-Za-z0-9_]+).*/\1/' | sort)
if [ "$listed" != "$found" ]; then
	echo "hack/fuzz.sh lists different fuzz targets than the code has:" >&2
	diff <(echo "$listed") <(echo "$found") >&2 || true
	echo "add the new target to targets in hack/fuzz.sh" >&2
	exit 1
fi

want=("$@")
ran=0
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " =~ " $name " ]]; then
		continue
	fi
	echo "== $name ($pkg, $fuzztime)"
	crashers="${pkg#./}/testdata/fuzz/$name"
	before=$(find "$crashers" -type f 2>/dev/null | wc -l || true)
	log=$(mktemp)
	if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" 2>&1 | tee "$log"; then
		# Go's fuzzing coordinator can end a time-bounded run with a bare "context deadline
		# exceeded" when a worker is still busy at the deadline (go.dev/issue/75804): no input
		# failed and none was written. Only that, with no new crasher, is not a failure.
		if grep -q '^    context deadline exceeded$' "$log" && ! grep -q 'Failing input written' "$log" &&
			[ "$(find "$crashers" -type f 2>/dev/null | wc -l || true)" -eq "$before" ]; then
			echo "== $name: the run ended at its deadline with no failing input (go.dev/issue/75804)"
		else
			rm -f "$log"
			exit 1
		fi
	fi
	rm -f "$log"
	ran=$((ran + 1))
done
if [ "$ran" -eq 0 ]; then
	echo "no fuzz target named ${want[*]}: choose from $(echo $listed)" >&2
	exit 2
fi
