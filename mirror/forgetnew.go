package mirror

// ForgetNew stops following tables FollowNew started following that were
// never copied (a table created and dropped again before its copy
// landed): they leave NeedsResync, so the follower stops copying them.
// Recorded tables are left as they are.
func (m *Mirror) ForgetNew(names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range names {
		if m.tables[n] == nil {
			delete(m.pending, n)
		}
	}
}
