// Package version holds the build's version, commit and date, injected at link time with
// -ldflags "-X github.com/karpnet/kubectl-karpnet/pkg/version.Version=v0.1.0 ...".
package version

import "runtime"

// Link-time values; a plain `go build` leaves the defaults.
var (
	Version = "dev"
	Commit  = "unknown"
	Date    = "unknown"
)

// Info is the build's identity, as `kubectl karpnet version -o json` prints it.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the build's Info.
func Get() Info {
	return Info{
		Version:   Version,
		Commit:    Commit,
		Date:      Date,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
}
