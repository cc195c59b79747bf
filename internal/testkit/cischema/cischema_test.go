package cischema

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// recorder is a testing.TB that records what ValidateJUnit does with its test.
type recorder struct {
	testing.TB
	logs           []string
	fatal, skipped string
}

func (r *recorder) Helper() {}

func (r *recorder) Log(args ...any) { r.logs = append(r.logs, fmt.Sprint(args...)) }

func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatal(args ...any) { r.fatal = fmt.Sprint(args...); runtime.Goexit() }

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Skip(args ...any) { r.skipped = fmt.Sprint(args...); runtime.Goexit() }

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) SkipNow() { r.skipped = "SkipNow"; runtime.Goexit() }

// validate runs ValidateJUnit over r as a test would, and returns what it returned and
// whether it returned at all (false when it ended the test).
func validate(r *recorder, report []byte) (validated, returned bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		validated = ValidateJUnit(r, report)
		returned = true
	}()
	<-done
	return validated, returned
}

// setShort sets -test.short for the rest of t.
func setShort(t *testing.T, short bool) {
	t.Helper()
	f := flag.Lookup("test.short")
	old := f.Value.String()
	if err := f.Value.Set(strconv.FormatBool(short)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// TestValidateJUnitWithoutXMLLint hides xmllint: under -short the JUnit report is logged as
// not validated and the calling test goes on; without -short it fails with the reason. It is
// never skipped.
func TestValidateJUnitWithoutXMLLint(t *testing.T) {
	report := []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites name="karpnet check"></testsuites>` + "\n")
	for _, short := range []bool{true, false} {
		t.Run("short="+strconv.FormatBool(short), func(t *testing.T) {
			t.Setenv("PATH", t.TempDir())
			setShort(t, short)
			r := &recorder{TB: t}
			validated, returned := validate(r, report)
			if r.skipped != "" {
				t.Fatalf("ValidateJUnit skipped the test (%q): it must never skip", r.skipped)
			}
			if validated {
				t.Error("ValidateJUnit reported the report validated without xmllint")
			}
			if short {
				if !returned || r.fatal != "" {
					t.Fatalf("under -short ValidateJUnit ended the test (%q), want it to return so the test goes on", r.fatal)
				}
				if len(r.logs) != 1 || r.logs[0] != NotValidated {
					t.Errorf("logged %q, want one line %q", r.logs, NotValidated)
				}
				return
			}
			if returned || !strings.Contains(r.fatal, NotValidated) {
				t.Errorf("without -short: returned %v, failure %q; want the test failed with %q", returned, r.fatal, NotValidated)
			}
		})
	}
	if want := "JUnit not validated against its schema: xmllint not on PATH (apt-get install libxml2-utils)"; NotValidated != want {
		t.Errorf("NotValidated = %q, want %q", NotValidated, want)
	}
}
