package mirror

// A followed table dropped in PostgreSQL (or renamed away: its old name
// no longer resolves) keeps its record and its history, but at HEAD it
// no longer exists: PostgreSQL answers 42P01 for it and lists it in no
// catalog. The daemon's catalog poll finds such tables (daemon/
// dropped.go) and marks them gone here, in memory (a restart marks them
// again at its first poll or preflight); readers of HEAD — the SQL port's
// tables and catalog — leave gone tables out. Marking bumps the facts
// generation, so cached plans and HEAD's table set are built again.

// SetGone records whether table no longer exists in PostgreSQL.
func (m *Mirror) SetGone(table string, gone bool) {
	m.goneMu.Lock()
	defer m.goneMu.Unlock()
	if m.gone[table] == gone {
		return
	}
	if gone {
		if m.gone == nil {
			m.gone = map[string]bool{}
		}
		m.gone[table] = true
	} else {
		delete(m.gone, table)
	}
	m.factsGen.Add(1)
}

// Gone reports whether table was marked gone (SetGone).
func (m *Mirror) Gone(table string) bool {
	m.goneMu.Lock()
	defer m.goneMu.Unlock()
	return m.gone[table]
}
