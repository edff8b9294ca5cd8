package head

import (
	"fmt"
	"hash/crc32"
	"io"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/heap"
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
		kc <- bdb.View(func(txn *badger.Txn) error {
			r := &chunkReader{txn: txn, gen: gen, table: tr.Name, kind: 'k', n: tr.KeysLen}
			if err := ks.readKeyImage(r); err != nil {
				return fmt.Errorf("keys of %s: %w", tr.Name, err)
			}
			return r.finish(tr.KeysCRC)
		})
	}()
	var ix *radixindex.Index
	ierr := bdb.View(func(txn *badger.Txn) error {
		r := &chunkReader{txn: txn, gen: gen, table: tr.Name, kind: 'i', n: tr.IndexLen}
		var err error
		ix, err = radixindex.RestoreImageIndex(r, func(dst []byte, id uint64) []byte { return t.keys.key(heap.RowID(id)) })
		if err != nil {
			return fmt.Errorf("index of %s: %w", tr.Name, err)
		}
		return r.finish(tr.IndexCRC)
	})
	if kerr := <-kc; kerr != nil {
		return nil, kerr
	}
	if ierr != nil {
		return nil, ierr
	}
	t.keys = ks
	return ix, nil
}

// chunkReader reads a checkpoint stream of n bytes (streamWriter's
// chunks) chunk by chunk, summing the CRC-32C the record holds.
type chunkReader struct {
	txn   *badger.Txn
	gen   uint64
	table string
	kind  byte
	n     int // the stream's length, from the record

	buf  []byte // the chunk being read
	off  int    // bytes of buf read
	next uint32 // the next chunk to load
	read int    // bytes loaded
	crc  uint32
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

// load reads the next chunk (io.EOF past the stream's last byte).
func (r *chunkReader) load() error {
	if r.read >= r.n {
		return io.EOF
	}
	item, err := r.txn.Get(chunkKey(r.gen, r.table, r.kind, r.next))
	if err != nil {
		return fmt.Errorf("chunk %d of %s's %c stream: %w", r.next, r.table, r.kind, err)
	}
	if r.buf, err = item.ValueCopy(r.buf[:0]); err != nil {
		return fmt.Errorf("chunk %d of %s's %c stream: %w", r.next, r.table, r.kind, err)
	}
	if len(r.buf) == 0 || r.read+len(r.buf) > r.n {
		return fmt.Errorf("%w: %s's %c stream: chunk %d of %d bytes past the record's %d", ErrCorruptCheckpoint, r.table, r.kind, r.next, len(r.buf), r.n)
	}
	r.crc = crc32.Update(r.crc, crcTable, r.buf)
	r.read += len(r.buf)
	r.off = 0
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
