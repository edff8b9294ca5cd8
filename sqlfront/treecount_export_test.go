package sqlfront

// SetLoadingTreeRows sets the table size from which a full-table
// aggregate waits for a loading in-memory HEAD (tests use small tables);
// the returned func restores it.
func SetLoadingTreeRows(n uint64) (restore func()) {
	old := loadingTreeRows
	loadingTreeRows = n
	return func() { loadingTreeRows = old }
}
