package head

import (
	"time"
)

// Warming a mapped restore (issue 24 item 2).
//
// The restore maps every heap's checkpoint (heap.Config.RestoreCold: the
// pages come back cold, reading their images from the checkpoint, their
// summaries from the manifest; no image is read), so the model is served
// after reading the manifests, index and key store, not after every page
// is read and decoded (at 10M rows ≈ 10k pages, 8.7 s of a 9.2 s restart
// at load 12 before). A goroutine the model owns then decodes each
// table's pages in page order (heap.Warm) until the decoded pages reach
// heap.memory's bound — the state the decoding restore left — and moves
// the rest to the page file, checking every image; a few pages at a time,
// each step one version of the same content and LSN published under the
// heap's own writer lock, so an Apply waits at most one step. Close stops
// it and waits for it. A damaged image makes the model unusable (rebuilt
// from the trees). Until no page reads from the restored checkpoint
// (heap.CheckpointPins), checkpoints keep its images (no Retain).

// warmStep is how many pages one heap.Warm call decodes: the longest an
// Apply of that table waits for the warmer (≈ 10 ms of CPU at 1024-row
// pages of the scale benchmark's table).
const warmStep = 32

// startWarm starts the warmer over the tables the model holds (after a
// restore). Called once, before the model is subscribed.
func (m *Model) startWarm() {
	m.mu.RLock()
	tables := make([]*Table, 0, len(m.tables))
	for _, t := range m.tables {
		tables = append(tables, t)
	}
	m.mu.RUnlock()
	if len(tables) == 0 {
		return
	}
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.closed {
		return
	}
	m.warmWG.Add(1)
	go m.warm(tables)
}

// warm is the warmer's goroutine (startWarm).
func (m *Model) warm(tables []*Table) {
	defer m.warmWG.Done()
	if m.warmHold != nil {
		<-m.warmHold
	}
	start := time.Now()
	// The mapped index and key store files first: their pages' checksums
	// were not checked by the restore (ckptfile.go).
	for _, t := range tables {
		if t.images == nil || m.warmStop.Load() {
			continue
		}
		if err := t.images.verify(m.warmStop.Load); err != nil {
			m.unusable.Store(true)
			if p := m.opts.Persist; p != nil && p.Logger != nil {
				p.Logger.Error("in-memory HEAD: a restored index or key store page does not read back; HEAD is rebuilt from the trees", "table", t.name, "err", err)
			}
			return
		}
	}
	m.verified.Store(true)
	pages := 0
	for _, t := range tables {
		for !m.warmStop.Load() && !t.retired.Load() {
			n, done, err := t.hp.Warm(warmStep)
			pages += n
			if err != nil {
				// A damaged checkpoint image: the restore read none of
				// them, so this is where it shows. The model is not
				// served any more (reads go to the trees) and is rebuilt
				// from the trees (the daemon resets an unusable model
				// when its next batch is refused).
				m.unusable.Store(true)
				if p := m.opts.Persist; p != nil && p.Logger != nil {
					p.Logger.Error("in-memory HEAD: a restored page does not read back; HEAD is rebuilt from the trees", "table", t.name, "err", err)
				}
				return
			}
			if done {
				// The states kept for scans just behind HEAD hold
				// versions whose pages read the checkpoint: dropped, so
				// that the pins go (those scans read the tree instead).
				t.dropPast()
				break
			}
		}
	}
	m.warmed.Store(int64(pages))
	if p := m.opts.Persist; p != nil && p.Logger != nil {
		p.Logger.Info("in-memory HEAD warmed", "pages", pages, "tables", len(tables), "took", time.Since(start).Round(time.Millisecond), "stopped", m.warmStop.Load())
	}
}

// WaitWarm waits until the warmer started by a restore is done (tests,
// benchmarks); it returns at once when none runs.
func (m *Model) WaitWarm() { m.warmWG.Wait() }

// checkpointPins is the pages of every table still reading their image
// from the restored checkpoint (heap.CheckpointPins).
func (m *Model) checkpointPins() int64 {
	var n int64
	for _, name := range m.Tables() {
		if t := m.Table(name); t != nil {
			n += t.hp.CheckpointPins()
		}
	}
	return n
}
