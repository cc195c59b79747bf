# Targets for working on karpnet. Every target is a thin wrapper over a go command or a
# script in hack/, so each also works without make. `make help` lists them.

.PHONY: all help build test test-short update-goldens generate lint fmt fuzz demo release-check ci

# all runs the development gate, then the tests that start no component (the default target).
all: lint test-short

# help lists the targets with the first line of their comments.
help:
	@awk '/^#/ { if (doc == "" && /^# [a-z][a-z-]* /) { doc = substr($$0, 3); sub(/^[a-z-]+ /, "", doc) } next } \
		/^[a-z][a-z-]*:/ { name = $$0; sub(/:.*/, "", name); if (doc != "") printf "  %-15s %s\n", name, doc } \
		{ doc = "" }' $(firstword $(MAKEFILE_LIST))

# build writes the plugin binary to bin/kubectl-karpnet; put bin/ on PATH to run `kubectl karpnet`.
build:
	go build -o bin/kubectl-karpnet ./cmd/kubectl-karpnet

# test runs every test, the end-to-end suite included: the README's test command.
# The suite starts real etcd, kube-apiserver, moto and Prometheus, and drives kubectl.
test:
	go test -timeout 30m ./...

# test-short runs the unit, collector, command and golden tests only; no component is started.
test-short:
	@echo "test-short leaves out what starts a component: test/e2e, test/tmux, the scale smoke run, the harness's"
	@echo "etcd/kube-apiserver/moto tests and the completion test through real kubectl (go test -short -v ./... says which)"
	go test -short ./...

# update-goldens rewrites every golden file after an intended output change; review the diff.
update-goldens:
	go test ./pkg/diagnose ./pkg/printer ./pkg/cmd ./pkg/tui ./pkg/snapshot -update
	go test -timeout 30m ./test/e2e -run Golden -update

# generate rebuilds the embedded demo cluster, then the generated parts of README.md and docs/*.md.
generate:
	go generate ./pkg/demo

# lint runs the development gate, as CI does: gofmt, goimports, go vet, staticcheck, generated docs.
lint:
	bash hack/lint.sh

# fmt rewrites formatting and import grouping in place.
fmt:
	FIX=1 bash hack/lint.sh

# fuzz runs every fuzz target for FUZZTIME each (default 10s): make fuzz FUZZTIME=10m
fuzz:
	bash hack/fuzz.sh

# demo opens the terminal UI over the embedded demo cluster.
demo:
	go run ./cmd/kubectl-karpnet demo

# release-check builds the release archives offline and installs them with krew.
release-check:
	bash hack/release/check.sh

# ci runs what CI runs on every change (.ci/run).
ci:
	.ci/run
