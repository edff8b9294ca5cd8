package heap

import "sync"

// imageWriter writes a checkpoint's batches of page images on a goroutine
// of its own, one batch at a time, while the checkpoint encodes and
// compresses the next (Cut.Write): before, encoding and the store's
// writes alternated on one goroutine. Measured on the scale bench's table
// (TestCheckpointWriteProfile in store, 2M rows, every page dirty, load
// ≈ 50): 3.8 s = encode and compress 2.4 s + image writes 1.3 s + the
// manifest and its sync 0.1 s. At most one batch is being written while
// the next fills, and the checkpoint gives each batch half its ceiling,
// so the images held stay within opts.BatchBytes (plus an image each).
type imageWriter struct {
	store  PageStore
	table  string
	before func(batch int) error

	batches chan []PageImage
	done    chan struct{}
	once    sync.Once

	mu  sync.Mutex
	err error // the first failure; later batches are dropped
}

func newImageWriter(store PageStore, table string, before func(int) error) *imageWriter {
	w := &imageWriter{store: store, table: table, before: before, batches: make(chan []PageImage), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *imageWriter) run() {
	defer close(w.done)
	n := 0
	for batch := range w.batches {
		if w.failed() != nil {
			continue
		}
		err := error(nil)
		if w.before != nil {
			err = w.before(n)
		}
		if err == nil {
			err = w.store.PutImages(w.table, batch)
		}
		n++
		if err != nil {
			w.mu.Lock()
			w.err = err
			w.mu.Unlock()
		}
	}
}

func (w *imageWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// put hands batch over (the writer owns it from then on); it waits while
// the previous batch is being written, and returns an earlier batch's
// failure instead of taking this one.
func (w *imageWriter) put(batch []PageImage) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.batches <- batch
	return nil
}

// close waits for every batch handed over to be written and returns the
// first failure. Safe to call more than once.
func (w *imageWriter) close() error {
	w.once.Do(func() { close(w.batches) })
	<-w.done
	return w.failed()
}
