package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/lipgloss"

	"github.com/karpnet/kubectl-karpnet/pkg/style"
)

// theme is the one Styles struct of the TUI: karpnet's palette plus the few looks only the
// TUI needs, all derived from the palette so they share its renderer and colour decision.
type theme struct {
	*style.Styles
	// Selected marks the row under the cursor (a "▸" marker also marks it without colour).
	Selected lipgloss.Style
	// BarUsed and BarFree draw the used and free parts of a subnet bar.
	BarUsed lipgloss.Style
	BarFree lipgloss.Style
	// TabActive and Tab draw the node view's section tabs.
	TabActive lipgloss.Style
	Tab       lipgloss.Style
	// Error draws an error in the status line or on the failed screen.
	Error lipgloss.Style
}

// newTheme derives the TUI's looks from st.
func newTheme(st *style.Styles) theme {
	return theme{
		Styles:    st,
		Selected:  st.Strong.Reverse(true),
		BarUsed:   st.Strong.UnsetBold(),
		BarFree:   st.Dim,
		TabActive: st.Header.Underline(true),
		Tab:       st.Dim,
		Error:     st.Critical.Style,
	}
}

// helpStyles styles the help footer from the theme.
func (t theme) helpStyles() help.Styles {
	return help.Styles{
		Ellipsis:       t.Dim,
		ShortKey:       t.Strong,
		ShortDesc:      t.Dim,
		ShortSeparator: t.Dim,
		FullKey:        t.Strong,
		FullDesc:       t.Dim,
		FullSeparator:  t.Dim,
	}
}

// styleInput styles the filter input from the theme.
func (t theme) styleInput(in *textinput.Model) {
	in.PromptStyle = t.Header
	in.TextStyle = t.Strong.UnsetBold()
	in.PlaceholderStyle = t.Dim
	in.Cursor.Style = t.Selected.UnsetBold()
	in.Cursor.TextStyle = t.Strong.UnsetBold()
}
