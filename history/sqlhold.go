// How a patch holds its statements until Close: per table and phase, as
// records with their foreign-key tuples, in memory and then in an unlinked
// temporary file.

package history

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// The phases of a patch, in the order their statements are written for a
// table (deletes of every table come first, see SQLWriter).
const (
	phaseDelete = iota
	phaseUpdate
	phaseInsert
	phaseReparent // updates of a self-referencing table's reference columns
	phases
)

// phaseBuffer holds one table's statements of one phase: extents in the
// temporary file, then what is still in memory. Deletes, and the inserts
// of a table that references itself, are held as records (see record).
type phaseBuffer struct {
	extents [][2]int64 // offset, length
	buf     bytes.Buffer
}

// The sections of a record's tuples (see record).
const (
	secReferenced = iota // by which rows of other tables reference it
	secReferences        // which rows of other tables it references
	secSelfOwn           // by which rows of its own table reference it
	secSelfRefs          // which rows of its own table it references
	sections
)

// record is a held statement with the foreign-key tuples (see tuple) of
// its row, by section. Deletes are held as records (their order depends
// on the updates), and so are the inserts of a table that references
// itself (ordered parents first at Close).
type record struct {
	keys [sections][]string
	stmt []byte
}

// record encodes the record of r's statement in table: per section a
// uvarint count and the tuples, each with its uvarint length; then the
// statement with its uvarint length.
func (w *SQLWriter) record(table string, r *Row, stmt string) []byte {
	b := w.meta[:0]
	for sec := range sections {
		var keys []string
		for i, fk := range w.opts.ForeignKeys {
			self := fk.Table == fk.References
			var t string
			switch {
			case (sec == secReferenced && !self || sec == secSelfOwn && self) && fk.References == table:
				t = tuple(i, fk.RefColumns, r)
			case (sec == secReferences && !self || sec == secSelfRefs && self) && fk.Table == table:
				t = tuple(i, fk.Columns, r)
			}
			if t != "" {
				keys = append(keys, t)
			}
		}
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, k := range keys {
			b = appendBytes(b, k)
		}
	}
	b = appendBytes(b, stmt)
	w.meta = b
	return b
}

// spill appends every buffer's memory to the temporary file.
func (w *SQLWriter) spill() error {
	if w.tmp == nil {
		f, err := os.CreateTemp(w.opts.TempDir, "sidecar-patch-*")
		if err != nil {
			return fmt.Errorf("sql patch: hold statements: %w", err)
		}
		// Unlinked at once: nothing is left behind, whatever happens.
		os.Remove(f.Name())
		w.tmp = f
	}
	for _, t := range w.tables {
		for i := range w.buffers[t] {
			sp := &w.buffers[t][i]
			if sp.buf.Len() == 0 {
				continue
			}
			n, err := w.tmp.WriteAt(sp.buf.Bytes(), w.tmpSize)
			if err != nil {
				return fmt.Errorf("sql patch: hold statements: %w", err)
			}
			sp.extents = append(sp.extents, [2]int64{w.tmpSize, int64(n)})
			w.tmpSize += int64(n)
			sp.buf.Reset()
		}
	}
	w.held = 0
	return nil
}

// appendBytes appends s with its uvarint length.
func appendBytes(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// eachRecord reads a buffer of records.
func eachRecord(r io.Reader, fn func(*record) error) error {
	br := bufio.NewReader(r)
	next := func() (string, error) {
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return string(b), err
	}
	for {
		var rec record
		for sec := range sections {
			n, err := binary.ReadUvarint(br)
			if err == io.EOF && sec == 0 {
				return nil
			}
			if err != nil {
				return fmt.Errorf("held record: %w", err)
			}
			for range n {
				k, err := next()
				if err != nil {
					return fmt.Errorf("held record: %w", err)
				}
				rec.keys[sec] = append(rec.keys[sec], k)
			}
		}
		stmt, err := next()
		if err != nil {
			return fmt.Errorf("held record: %w", err)
		}
		rec.stmt = []byte(stmt)
		if err := fn(&rec); err != nil {
			return err
		}
	}
}
