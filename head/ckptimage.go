package head

import (
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/internal/invariants"
	"github.com/sidecar-dev/sidecar/radixindex"
)

// Reading the index and key store images of a version 4 checkpoint
// (issue 24 item 2). Version 3 read each stream whole into one buffer
// (getStream) and decoded it: a record per index node, a set per key —
// at 30M rows 430 MB of streams, 8.7 s of a 9.4 s restart at load 30.
// An image is read chunk by chunk (chunkReader) straight into the memory
// that holds it at the end — each index page into its slab chunk, each
// key page into its arena — checked page by page (xxh3-64) and the
// stream as a whole (CRC-32C of the record, as before), with one chunk
// (1 MiB) in flight beside what is restored. The key store and the index
// are read side by side, each in its own read transaction: the chunks of
// a generation named by the record are never changed, only swept after
// a later record is durable, and no checkpoint runs during a restore.
// A damaged page refuses the whole checkpoint, which is then rebuilt from
// the trees (restoreCounting), as a damaged heap image does.

// restoreIndexImage reads table tr's key store and radix index images of
// generation gen into t's key store, and returns the index.
func restoreIndexImage(bdb *badger.DB, t *Table, gen uint64, tr tableRecord) (*radixindex.Index, error) {
	var ks keyStore
	kc := make(chan error, 1)
	go func() {
		r := newChunkReader(bdb, gen, tr.Name, 'k', tr.KeysLen)
		defer r.close()
		if err := ks.readKeyImage(r); err != nil {
			kc <- fmt.Errorf("keys of %s: %w", tr.Name, err)
			return
		}
		kc <- r.finish(tr.KeysCRC)
	}()
	ix, ierr := func() (*radixindex.Index, error) {
		r := newChunkReader(bdb, gen, tr.Name, 'i', tr.IndexLen)
		defer r.close()
		ix, err := radixindex.RestoreImageIndex(r, func(dst []byte, id uint64) []byte { return t.keys.key(heap.RowID(id)) })
		if err != nil {
			return nil, fmt.Errorf("index of %s: %w", tr.Name, err)
		}
		return ix, r.finish(tr.IndexCRC)
	}()
	if kerr := <-kc; kerr != nil {
		return nil, kerr
	}
	if ierr != nil {
		return nil, ierr
	}
	t.keys = ks
	if invariants.Enabled {
		// INVARIANT: an image restores the tree its writer froze (the
		// checksums stand for its structure; Verify reads it through the
		// keys restored beside it).
		ix.View(func(tr *radixindex.Tree, _ uint64) {
			err := tr.Verify()
			invariants.Check(err == nil, "head: restored index image of %s (%d keys) is broken: %v", t.name, tr.Len(), err)
		})
	}
	return ix, nil
}

// chunkFetchers is how many chunks of one stream are read at once. Reads
// of a checkpoint just dropped from the OS page cache are bound by the
// disk's latency, not its bandwidth: on the benchmark VM one reader of
// 1 MiB preads got 92–121 MB/s, four 284 MB/s, eight 506 MB/s. The key
// store and the index are read side by side, so a restore has twice this
// many reads in flight.
const chunkFetchers = 4

// chunkReader reads a checkpoint stream of n bytes (streamWriter's
// chunks) in order, summing the CRC-32C the record holds, while
// chunkFetchers goroutines it owns read the next chunks ahead, each in
// its own read transaction: chunk i is fetcher i%chunkFetchers's, which
// keeps at most two chunks (one being read by the reader, one ahead).
// close stops them and waits for them.
type chunkReader struct {
	table string
	kind  byte
	n     int // the stream's length, from the record

	ready []chan fetched // per fetcher: its next chunk
	spare []chan []byte  // per fetcher: buffers given back
	stop  chan struct{}
	wg    sync.WaitGroup

	buf  []byte // the chunk being read
	off  int    // bytes of buf read
	next int    // the next chunk to load
	read int    // bytes loaded
	crc  uint32
	err  error
}

type fetched struct {
	b   []byte
	err error
}

func newChunkReader(bdb *badger.DB, gen uint64, table string, kind byte, n int) *chunkReader {
	r := &chunkReader{table: table, kind: kind, n: n, stop: make(chan struct{})}
	chunks := max(1, (n+chunkBytes-1)/chunkBytes)
	workers := min(chunkFetchers, chunks)
	for w := range workers {
		ready, spare := make(chan fetched, 1), make(chan []byte, 2)
		spare <- nil
		spare <- nil
		r.ready, r.spare = append(r.ready, ready), append(r.spare, spare)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for i := w; i < chunks; i += workers {
				var buf []byte
				select {
				case buf = <-spare:
				case <-r.stop:
					return
				}
				err := bdb.View(func(txn *badger.Txn) error {
					item, err := txn.Get(chunkKey(gen, table, kind, uint32(i)))
					if err == nil {
						buf, err = item.ValueCopy(buf[:0])
					}
					return err
				})
				if err != nil {
					err = fmt.Errorf("chunk %d of %s's %c stream: %w", i, table, kind, err)
				}
				select {
				case ready <- fetched{buf, err}:
				case <-r.stop:
					return
				}
				if err != nil {
					return
				}
			}
		}()
	}
	return r
}

// close stops the fetchers and waits for them.
func (r *chunkReader) close() {
	close(r.stop)
	r.wg.Wait()
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if err := r.load(); err != nil {
			return 0, err
		}
	}
	k := copy(p, r.buf[r.off:])
	r.off += k
	return k, nil
}

// load takes the next chunk from its fetcher, giving the one read back
// to its own (io.EOF past the stream's last byte).
func (r *chunkReader) load() error {
	if r.err != nil {
		return r.err
	}
	if r.read >= r.n {
		return io.EOF
	}
	if r.next > 0 {
		r.spare[(r.next-1)%len(r.spare)] <- r.buf // room: the fetcher took one to fill this chunk
	}
	f := <-r.ready[r.next%len(r.ready)]
	r.buf, r.off = f.b, 0
	if f.err != nil {
		r.buf, r.err = nil, f.err
		return f.err
	}
	if len(r.buf) == 0 || r.read+len(r.buf) > r.n {
		r.err = fmt.Errorf("%w: %s's %c stream: chunk %d of %d bytes past the record's %d", ErrCorruptCheckpoint, r.table, r.kind, r.next, len(r.buf), r.n)
		r.buf = nil
		return r.err
	}
	r.crc = crc32.Update(r.crc, crcTable, r.buf)
	r.read += len(r.buf)
	r.next++
	return nil
}

// finish checks that the reader consumed the whole stream and that its
// checksum is the record's.
func (r *chunkReader) finish(crc uint32) error {
	if r.read != r.n || r.off != len(r.buf) {
		return fmt.Errorf("%w: %s's %c stream: %d of the record's %d bytes read", ErrCorruptCheckpoint, r.table, r.kind, r.read-len(r.buf)+r.off, r.n)
	}
	if r.crc != crc {
		return fmt.Errorf("%w: %s's %c stream: checksum mismatch", ErrCorruptCheckpoint, r.table, r.kind)
	}
	return nil
}
