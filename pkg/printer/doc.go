// Package printer renders what the diagnosis found, for people and for programs:
//
//   - `check`: the findings listing as table or wide text (report.go, text.go; a run over
//     several clusters in clusters.go), the Report as JSON or YAML (data.go), and the CI
//     formats JUnit and SARIF (ci.go, junit.go, sarif.go);
//   - `describe node`: a node's sheet from its NodeReport (sheet.go, nodesheet.go and the
//     sections it is made of: capacity, interfaces, Cilium's IPAM, Auto Mode, the subnet's
//     network path from the way-out model), and `describe nodeclaim` (claimsheet.go);
//   - the subject sheets pkg/sheet builds, for the terminal UI and for
//     `describe subnet|nodeclass|nodepool|placementgroup|eni` (subnetsheet.go with its block
//     map, classsheet.go, poolsheet.go, groupsheet.go, enisheet.go), and one finding's sheet
//     (findingsheet.go);
//   - `diff` (diff.go), `explain` (explain.go: each check's catalogue entry and the ledger's
//     Verified files) and the catalogue and ledger tables of docs/checks.md (catalogue.go).
//
// A finding's remedy is its prose followed by its Commands, each shell-quoted and wrapped on
// lines of its own (remedy.go). Text output is deterministic (no clock, no map order) and every line fits
// Width columns (or the width a sheet is asked for); colour comes only from the style.Styles
// passed in, so a renderer with colour off gives plain text, and every string read from a
// cluster is shown as style.Printable does. JSON and YAML carry the Report's and the sheets'
// JSON tags as their public schema.
package printer
