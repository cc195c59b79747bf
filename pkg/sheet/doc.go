// Package sheet builds the subject sheets `kubectl karpnet describe subnet|nodeclass|nodepool|
// placementgroup` prints and the terminal UI shows: each subject's settings, what uses it, its
// members and the findings whose subjects name it, read from an analysed snapshot's Index and
// Report. It sits above the diagnosis and decides no association of its own.
package sheet
