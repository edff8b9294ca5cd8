package store

// Dir is the store's data directory ("" for an in-memory store): where
// packages keeping files beside Badger's (head's checkpoint images) put
// them.
func (db *DB) Dir() string {
	if db.opts.InMemory {
		return ""
	}
	return db.opts.Dir
}
