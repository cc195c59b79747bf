package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestREADMEIsGenerated fails when README.md's catalogue table or demo output differ from what
// the code generates.
func TestREADMEIsGenerated(t *testing.T) {
	old, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := render(old)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(old), "\n")); diff != "" {
		t.Errorf("README.md is out of date: run make generate (or go run ./hack/readme) and commit it (-generated +README.md):\n%s", diff)
	}
}
