// Package printer renders a diagnose.Report for people and for programs: the `check` listing
// as table or wide text, the `describe node` sheet, and the Report itself as JSON or YAML.
//
// Text output is deterministic (no clock, no map order) and every line fits Width columns;
// colour comes only from the style.Styles passed in, so a renderer with colour off gives plain
// text. JSON and YAML carry the Report's JSON tags as their public schema.
package printer
