package cmd

import (
	"errors"
	"fmt"
	"strings"
)

// Exit codes are part of karpnet's interface (see the README's exit codes).
const (
	// ExitOK: no finding at or above --fail-on.
	ExitOK = 0
	// ExitFindings: at least one finding at or above --fail-on.
	ExitFindings = 1
	// ExitUsage: bad flags or arguments.
	ExitUsage = 2
	// ExitCollect: could not run: nothing to diagnose could be collected (API server
	// unreachable or unauthenticated, the nodes forbidden, failed or answered with something
	// that is not nodes, snapshot unreadable), or the output could not be written.
	ExitCollect = 3
	// ExitInterrupted: interrupted (Ctrl-C, SIGTERM) before the report was complete; no report
	// is printed. 130 is what shells report for SIGINT.
	ExitInterrupted = 130
)

// exitError carries an exit code with the error to print. A nil err prints nothing.
type exitError struct {
	code int
	err  error
	// list holds valid values printed under the error, wrapped to the width of standard error.
	list []string
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf returns an error that exits with ExitUsage.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// collectError wraps err to exit with ExitCollect.
func collectError(err error) error { return &exitError{code: ExitCollect, err: err} }

// outputError wraps a failure to write the report (a closed pipe, a full disk) to exit with
// ExitCollect: it is not a usage error.
// The printers say what they were writing already; that is not said twice.
func outputError(what string, err error) error {
	prefix := "writing the " + what
	if strings.HasPrefix(err.Error(), prefix+": ") {
		return &exitError{code: ExitCollect, err: err}
	}
	return &exitError{code: ExitCollect, err: fmt.Errorf("%s: %w", prefix, err)}
}

// errInterrupted ends a run that was interrupted before its report was complete.
var errInterrupted = &exitError{code: ExitInterrupted,
	err: errors.New("interrupted before the cluster was read in full: no report was printed and no snapshot saved")}

// errWatchEnded ends a watch that was interrupted; what it read was printed as it came.
var errWatchEnded = &exitError{code: ExitInterrupted}

// errFindings ends a run whose findings reach --fail-on; the report was already printed.
var errFindings = &exitError{code: ExitFindings}

// exitCode maps an error from a command to its exit code. Errors that carry no code come
// from cobra's own parsing (unknown flag or command, wrong argument count): usage errors.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return ExitUsage
}
