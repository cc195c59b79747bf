package tui

import "github.com/charmbracelet/bubbles/key"

// keyMap holds every binding; the same bindings drive the help footer and the full help.
type keyMap struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Home     key.Binding
	End      key.Binding
	Open     key.Binding
	Back     key.Binding
	NextTab  key.Binding
	PrevTab  key.Binding
	NextRef  key.Binding
	PrevRef  key.Binding
	OpenRef  key.Binding
	Filter   key.Binding
	Apply    key.Binding
	Critical key.Binding
	Warning  key.Binding
	Info     key.Binding
	Group    key.Binding
	Sort     key.Binding
	Copy     key.Binding
	CopyText key.Binding
	Nodes    key.Binding
	Findings key.Binding
	Subnets  key.Binding
	Refresh  key.Binding
	Explain  key.Binding
	Help     key.Binding
	Quit     key.Binding
	QuitNow  key.Binding
}

// defaultKeys returns the k9s-like key map. Every view reads the same bindings: ? is help, q
// quits and Esc goes back everywhere; in every sheet Tab and ] (and their reverses) select a
// reference and Enter follows it.
func defaultKeys() keyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Up:       b("↑/k", "up", "up", "k"),
		Down:     b("↓/j", "down", "down", "j"),
		PageUp:   b("pgup", "page up", "pgup", "ctrl+b"),
		PageDown: b("pgdn", "page down", "pgdown", "ctrl+f", " "),
		Home:     b("home", "top", "home"),
		End:      b("end", "bottom", "end", "G"),
		Open:     b("enter", "open", "enter"),
		Back:     b("esc", "back", "esc"),
		NextTab:  b("}/→", "next section", "}", "right", "l"),
		PrevTab:  b("{/←", "previous section", "{", "left", "h"),
		NextRef:  b("tab/]", "next link", "tab", "]"),
		PrevRef:  b("⇧tab/[", "previous link", "shift+tab", "["),
		OpenRef:  b("enter", "follow link", "enter"),
		Filter:   b("/", "filter", "/"),
		Apply:    b("enter", "keep filter", "enter"),
		Critical: b("1", "critical only", "1"),
		Warning:  b("2", "warning only", "2"),
		Info:     b("3", "info only", "3"),
		Group:    b("g", "group by", "g"),
		Sort:     b("S", "sort by", "S"),
		Copy:     b("y", "copy", "y"),
		CopyText: b("Y", "copy prose", "Y"),
		Nodes:    b("n", "nodes", "n"),
		Findings: b("f", "findings", "f"),
		Subnets:  b("s", "subnets", "s"),
		Refresh:  b("r", "refresh", "r"),
		Explain:  b("e", "explain", "e"),
		Help:     b("?", "help", "?", "H"),
		Quit:     b("q", "quit", "q", "ctrl+c"),
		QuitNow:  b("ctrl+c", "quit", "ctrl+c"),
	}
}

// helpKeys is what the footer shows for one screen: help.KeyMap over the key map.
type helpKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

// ShortHelp returns the bindings of the one-line footer.
func (h helpKeys) ShortHelp() []key.Binding { return h.short }

// FullHelp returns the columns of the full help.
func (h helpKeys) FullHelp() [][]key.Binding { return h.full }

// filterKeys are the bindings while the filter prompt is focused.
func (k keyMap) filterKeys() helpKeys {
	b := []key.Binding{k.Apply, k.Back}
	return helpKeys{short: b, full: [][]key.Binding{b}}
}

// moveKeys move a cursor or scroll a sheet.
func (k keyMap) moveKeys() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}
}

// narrowKeys narrow a list.
func (k keyMap) narrowKeys() []key.Binding {
	return []key.Binding{k.Filter, k.Critical, k.Warning, k.Info}
}

// sheetKeys are a sheet's bindings: short, the sheet's own keys in the footer, after the
// scroll key and before the reference keys; full, its own keys in the full help, after the
// reference keys. The footer names only what does something here: the scroll key the sheet
// can move by, the link keys when a reference can be opened, follow when one is selected.
func (k keyMap) sheetKeys(s linkedSheet, short, full []key.Binding) helpKeys {
	lead := k.scrollKeys(!s.vp.AtBottom(), !s.vp.AtTop())
	if s.links.openable() {
		short = append(short, brief(k.NextRef, "links"))
	}
	if s.links.pick >= 0 {
		short = append(short, brief(k.OpenRef, "follow"))
	}
	short = append(append(lead, short...), k.Back, k.Refresh, k.Help, k.Quit)
	return helpKeys{
		short: short,
		full:  [][]key.Binding{k.moveKeys(), append([]key.Binding{k.NextRef, k.PrevRef, k.OpenRef, k.Back}, full...), k.viewKeys()},
	}
}

// scrollKeys is the cursor key the footer names: down while something is below, else up while
// something is above, else none.
func (k keyMap) scrollKeys(down, up bool) []key.Binding {
	switch {
	case down:
		return []key.Binding{k.Down}
	case up:
		return []key.Binding{k.Up}
	}
	return nil
}

// findingCopyKeys are the keys that copy a finding's remedy: its commands, and its prose.
func (k keyMap) findingCopyKeys() []key.Binding {
	return []key.Binding{brief(k.Copy, "copy commands"), k.CopyText}
}

// passKeys are the root model's keys that a sheet leaves to it.
func (k keyMap) passKeys() []key.Binding {
	return []key.Binding{k.Quit, k.Help, k.Refresh, k.Critical, k.Warning, k.Info, k.Nodes, k.Findings, k.Subnets}
}

// viewKeys switch views, refresh, show help and quit.
func (k keyMap) viewKeys() []key.Binding {
	return []key.Binding{k.Nodes, k.Findings, k.Subnets, k.Refresh, k.Help, k.Quit}
}

// otherViewKeys are viewKeys but own, the key of the view already shown.
func (k keyMap) otherViewKeys(own key.Binding) []key.Binding {
	var keys []key.Binding
	for _, b := range k.viewKeys() {
		if b.Keys()[0] != own.Keys()[0] {
			keys = append(keys, b)
		}
	}
	return keys
}

// listKeys are the cursor key and Enter a list's footer names: the key the cursor can move by
// and open when a row is under the cursor.
func (k keyMap) listKeys(l cursorList, open bool) []key.Binding {
	keys := k.scrollKeys(l.canMove(1), l.canMove(-1))
	if open {
		keys = append(keys, k.Open)
	}
	return keys
}
