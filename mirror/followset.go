package mirror

// FollowAlso adds tables to the set the mirror follows (Options.Tables):
// the leaf partitions of a followed partitioned table, which the stream
// and the copy name instead of their root when the publication does not
// publish via the root. Without it their changes would be ignored as
// changes to tables that are not followed. A mirror that follows every
// table (Options.Tables nil) is unchanged.
func (m *Mirror) FollowAlso(names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.follow == nil {
		return
	}
	for _, n := range names {
		m.follow[n] = true
	}
}

// FollowNew starts following tables the mirror has no record of while
// it runs: a partition created or attached under a followed partitioned
// root (the daemon's catalog poll finds it). From this call on their
// streamed changes are held (as a table in state resync_needed holds
// them), never ignored, and NeedsResync lists them, so the follower
// copies them under a fresh snapshot and TableCopied applies the held
// changes the copy does not contain: no change is lost between the
// partition's creation and its copy. (Changes applied before this call
// were ignored, but they committed before the copy's snapshot, which
// therefore holds them.) Names already recorded or pending are skipped.
func (m *Mirror) FollowNew(names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range names {
		if m.follow != nil {
			m.follow[n] = true
		}
		if m.tables[n] != nil || m.pending[n] != nil {
			continue
		}
		if m.pending == nil {
			m.pending = map[string]*table{}
		}
		m.pending[n] = &table{rec: tableRecord{Name: n, State: StateResyncNeeded, ResyncFrom: m.head.EndLSN}}
		m.resyncNote.signal()
		m.log.Info("following a new table; its changes are held until it is copied", "table", n)
	}
}

// pendingNeeds adds to out the pending tables not yet copied, and
// forgets those that are. The caller holds mu.
func (m *Mirror) pendingNeeds(out []string) []string {
	for n := range m.pending {
		if m.tables[n] != nil {
			delete(m.pending, n)
			continue
		}
		if !m.waitingLanding(n) {
			out = append(out, n)
		}
	}
	return out
}
