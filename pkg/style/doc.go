// Package style holds karpnet's text palette and its colour policy. A Styles value is built once
// from a lipgloss renderer bound to the output writer and passed down to printers and views;
// nothing here is package-level mutable state.
//
// Every severity has a glyph as well as a colour, so output reads the same without colour.
// Colour follows the --color flag (auto, always, never) and NO_COLOR (https://no-color.org):
// NO_COLOR turns colour off unless the user asked for --color=always.
package style
