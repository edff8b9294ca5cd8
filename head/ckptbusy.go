package head

// Checkpointing reports whether a checkpoint is being taken or written
// (from Apply or Checkpoint). The store's value-log reclaim, which refuses
// Badger writes while it flushes the memtables, waits for a later check
// while it does: a checkpoint's chunk writes are not retried
// (history.AutoGCOptions.Busy).
func (m *Model) Checkpointing() bool { return len(m.ckptSlot) > 0 }
