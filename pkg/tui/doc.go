// Package tui is karpnet's full-screen terminal UI over a diagnose.Report: a nodes table worst
// first with a subnet strip, a node's describe sheet, findings grouped by check with a sheet per
// finding whose references open the describe sheets of its subnet, NodePool, class and
// placement group, and the subnets the nodes use, with a filter, severity toggles, grouping and
// a background refresh.
//
// It follows the Elm architecture of bubbletea: one root Model with loading, failed and ready
// states, typed sub-models for the views, typed messages, and I/O (the Loader) only inside a
// tea.Cmd. View is a pure function of the model. Per-node row text and search keys are
// computed once per report, so filtering and scrolling stay instant at thousands of nodes.
package tui
