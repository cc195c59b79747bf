package tui

// windowTitle is the terminal title for the context named title, which newModel has already
// made style.Printable so a hostile context name cannot end the title sequence early.
func windowTitle(title string) string {
	if title == "" {
		return "karpnet"
	}
	return "karpnet — " + title
}
