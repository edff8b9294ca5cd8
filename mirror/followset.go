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
