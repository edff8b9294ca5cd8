package head

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/zeebo/xxh3"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/radixindex"
)

// Image files in parts (checkpoint record version 6, issue 24, session
// 20: a checkpoint writes only the index and key store pages that changed
// since the last one). Version 5 wrote each table's radix index image and
// key store whole at every checkpoint, changed or not: at 100M rows 1m47s
// of an otherwise unchanged checkpoint. Version 6 stores them in parts,
// each its own file in <data_dir>/headimages named by the generation:
//
//	<gen:016x>-<i>.i          the index image's head (header, free lists)
//	<gen:016x>-<i>.i<k>-<s>   pages [s×indexPartPages, …) of node kind k,
//	                          each followed by its xxh3-64 (the image's
//	                          bytes for them)
//	<gen:016x>-<i>.k-<s>      a key store file (keyfile.go) of key pages
//	                          [s×keyPartPages, …)
//
// A part whose pages all equal those of the same part of the last
// durable generation is not written: the new generation's name is a hard
// link to that generation's file (the file system's link count is the
// reference count). Crash safety is version 5's: a written part is
// synced, the directory is synced after the links, and only then the
// position record names the generation; the sweep after the record
// unlinks every other generation's names, and a part linked into the new
// generation lives on under its new name. A file is never written once
// made; a name left by a kill is removed before it is made or linked
// again.
//
// A page equals the last generation's when it is a view of the mapped
// part the table was restored from that no change has copied (mapped
// pages are never written, and the part's content went unchanged into
// every generation since), or when its xxh3-128 equals the one the last
// generation's writer computed for that page (kept in memory with the
// model: tablePrev). A page that was mapped then and is copied now has no
// recorded hash, and its part is written.
const (
	recordParts = 6
	// indexPartPages is the index pages of a part: ≈ 1 MiB of full-size
	// slab chunks (≈ 16 KiB each).
	indexPartPages = 64
	// keyPartPages is the key store pages of a part (one per heap page:
	// ≈ 10 KiB each for a bigint key at 1,024 rows a page).
	keyPartPages = 256
	// keyPartMappers is how many key parts a restore maps at once.
	keyPartMappers = 8
)

// partFile is one part of a version 6 record: its file and length.
type partFile struct {
	File string
	Len  int
}

// pageSum is the xxh3-128 of a page as the last generation wrote it (ok
// false: unknown, the page was a mapped view then).
type pageSum struct {
	h  xxh3.Uint128
	ok bool
}

// tablePrev is what the last durable generation holds of a table's index
// and key store: the parts' files and each page's sum.
type tablePrev struct {
	indexParts [radixindex.ImageKinds][]partFile
	indexPages [radixindex.ImageKinds][]pageSum
	keyParts   []partFile
	keyPages   []pageSum
	// keyTails[s] is key part s's tail (directory and trailer, keydir.go;
	// nil: not known, and the next checkpoint writes no key directory).
	keyTails [][]byte
	// keyDir is the key directory file holding them (empty: none).
	keyDir partFile
}

func indexPartName(gen uint64, i, k, s int) string {
	return fmt.Sprintf("%016x-%d.i%d-%d", gen, i, k, s)
}

func keyPartName(gen uint64, i, s int) string { return fmt.Sprintf("%016x-%d.k-%d", gen, i, s) }

// linkImageFile makes dir/name a hard link to dir/from (a part taken over
// unchanged from the last generation).
func linkImageFile(dir, from, name string) error {
	path := filepath.Join(dir, name)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Link(filepath.Join(dir, from), path); err != nil {
		return fmt.Errorf("image file %s: %w", name, err)
	}
	return nil
}

// partStats counts what writeTableParts wrote and linked.
type partStats struct {
	written, linked int
	// readMapped: a part written held mapped pages (read to write them).
	readMapped bool
}

// writeTableParts writes the cut tc's index and key store as the parts of
// generation gen, table number i, in dir — each part unchanged since prev
// (nil: none) linked, the others written and synced (the caller syncs dir
// before the record) — fills the record's parts and returns what the next
// checkpoint compares with.
func writeTableParts(p *Persist, dir string, gen uint64, i int, tc *tableCut, rec *tableRecord, prev *tablePrev) (*tablePrev, partStats, error) {
	var st partStats
	next := &tablePrev{}
	rec.IndexFile = imageFileName(gen, i, 'i')
	n, err := writeImageFile(dir, rec.IndexFile, tc.index.WriteImageHead)
	if err != nil {
		return nil, st, err
	}
	rec.IndexLen = int(n)
	st.written += int(n)
	rec.IndexParts = make([][]partFile, radixindex.ImageKinds)
	var buf []byte
	for k := range radixindex.ImageKinds {
		pages := tc.index.ImagePages(k)
		sums := make([]pageSum, pages)
		for c := range pages {
			if b, mapped := tc.index.ImagePage(k, c); !mapped {
				sums[c] = pageSum{h: xxh3.Hash128(b), ok: true}
			}
		}
		next.indexPages[k] = sums
		for s := 0; s*indexPartPages < pages; s++ {
			from, to := s*indexPartPages, min(pages, (s+1)*indexPartPages)
			name := indexPartName(gen, i, k, s)
			var part partFile
			if prev != nil && s < len(prev.indexParts[k]) && indexPartSame(tc, prev, k, from, to, sums) {
				part = partFile{File: name, Len: prev.indexParts[k][s].Len}
				if err := linkImageFile(dir, prev.indexParts[k][s].File, name); err != nil {
					return nil, st, err
				}
				st.linked += part.Len
			} else {
				n, err := writeImageFile(dir, name, func(w io.Writer) (int64, error) {
					bw := bufio.NewWriterSize(w, 1<<16)
					var total int64
					for c := from; c < to; c++ {
						b, mapped := tc.index.ImagePage(k, c)
						st.readMapped = st.readMapped || mapped
						buf = radixindex.AppendImagePage(buf[:0], b)
						bw.Write(buf)
						total += int64(len(buf))
					}
					return total, bw.Flush()
				})
				if err != nil {
					return nil, st, err
				}
				part = partFile{File: name, Len: int(n)}
				st.written += int(n)
				tc.pace.pace()
			}
			rec.IndexParts[k] = append(rec.IndexParts[k], part)
			next.indexParts[k] = append(next.indexParts[k], part)
		}
	}
	if err := p.step("index file " + tc.name); err != nil {
		return nil, st, err
	}
	pages := tc.keys.pages
	next.keyPages = make([]pageSum, len(pages))
	for pi, pg := range pages {
		switch {
		case pg == nil:
			next.keyPages[pi] = pageSum{ok: true}
		case pg.epoch != mappedEpoch:
			buf = appendKeyPageSumData(buf[:0], pg)
			next.keyPages[pi] = pageSum{h: xxh3.Hash128(buf), ok: true}
		}
	}
	allLinked := prev != nil && len(prev.keyParts) == (len(pages)+keyPartPages-1)/keyPartPages
	for s := 0; s*keyPartPages < len(pages); s++ {
		from, to := s*keyPartPages, min(len(pages), (s+1)*keyPartPages)
		name := keyPartName(gen, i, s)
		var part partFile
		var tail []byte
		if prev != nil && s < len(prev.keyParts) && keyPartSame(pages, prev, from, to, next.keyPages) {
			part = partFile{File: name, Len: prev.keyParts[s].Len}
			if err := linkImageFile(dir, prev.keyParts[s].File, name); err != nil {
				return nil, st, err
			}
			st.linked += part.Len
			if s < len(prev.keyTails) {
				tail = prev.keyTails[s]
			}
		} else {
			for _, pg := range pages[from:to] {
				st.readMapped = st.readMapped || pg != nil && pg.epoch == mappedEpoch
			}
			n, err := writeImageFile(dir, name, func(w io.Writer) (int64, error) {
				n, t, err := writeKeyFileTail(w, pages[from:to])
				tail = t
				return n, err
			})
			if err != nil {
				return nil, st, err
			}
			part = partFile{File: name, Len: int(n)}
			st.written += int(n)
			allLinked = false
			tc.pace.pace()
		}
		rec.KeyParts = append(rec.KeyParts, part)
		next.keyParts = append(next.keyParts, part)
		next.keyTails = append(next.keyTails, tail)
	}
	// The key parts' tails in one file, so a restore reads it instead of
	// every part's end (keydir.go); not written while a tail is unknown.
	// Every part linked: so is the file of their tails.
	if !slices.ContainsFunc(next.keyTails, func(t []byte) bool { return t == nil }) {
		name := imageFileName(gen, i, 'd')
		if allLinked && prev.keyDir.File != "" {
			if err := linkImageFile(dir, prev.keyDir.File, name); err != nil {
				return nil, st, err
			}
			next.keyDir = partFile{File: name, Len: prev.keyDir.Len}
			st.linked += prev.keyDir.Len
		} else {
			n, err := writeKeyDirFile(dir, name, next.keyTails)
			if err != nil {
				return nil, st, err
			}
			next.keyDir = partFile{File: name, Len: int(n)}
			st.written += int(n)
		}
		rec.KeyDirFile, rec.KeyDirLen = next.keyDir.File, next.keyDir.Len
	}
	for _, ps := range rec.IndexParts {
		for _, part := range ps {
			rec.IndexLen += part.Len
		}
	}
	for _, part := range rec.KeyParts {
		rec.KeysLen += part.Len
	}
	return next, st, p.step("chunks " + tc.name)
}

// indexPartSame reports whether pages [from, to) of kind k equal the last
// generation's part holding them (sums: this cut's).
func indexPartSame(tc *tableCut, prev *tablePrev, k, from, to int, sums []pageSum) bool {
	if min(len(prev.indexPages[k]), from+indexPartPages) != to {
		return false // the part had other pages then
	}
	for c := from; c < to; c++ {
		if _, mapped := tc.index.ImagePage(k, c); mapped {
			continue
		}
		if !prev.indexPages[k][c].ok || prev.indexPages[k][c].h != sums[c].h {
			return false
		}
	}
	return true
}

// keyPartSame is indexPartSame for key pages [from, to).
func keyPartSame(pages []*keyPage, prev *tablePrev, from, to int, sums []pageSum) bool {
	if min(len(prev.keyPages), from+keyPartPages) != to {
		return false
	}
	for pi := from; pi < to; pi++ {
		if pg := pages[pi]; pg != nil && pg.epoch == mappedEpoch {
			continue
		}
		if !prev.keyPages[pi].ok || prev.keyPages[pi].h != sums[pi].h {
			return false
		}
	}
	return true
}

// appendKeyPageSumData appends what a key page's sum covers: its layout
// fields and its data as the key file holds it.
func appendKeyPageSumData(dst []byte, p *keyPage) []byte {
	dst = append(dst, 1) // not a nil page
	dst = fmt.Appendf(dst, "%d:%d:%d:%d:%d:", p.width, len(p.live), len(p.start), p.garbage, len(p.buf))
	return appendKeyPageData(dst, p)
}

// restoreIndexParts maps table tr's index and key store parts (record
// version 6) from dir into t's key store and returns the index over them,
// the mappings, and what the next checkpoint compares with.
func restoreIndexParts(dir string, t *Table, tr tableRecord) (*radixindex.Index, *tableImages, *tablePrev, error) {
	head, err := os.ReadFile(filepath.Join(dir, tr.IndexFile))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("index of %s: %w", tr.Name, err)
	}
	counts, err := radixindex.ImageHeadPages(head)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("index of %s: %w", tr.Name, err)
	}
	if len(tr.IndexParts) != radixindex.ImageKinds {
		return nil, nil, nil, fmt.Errorf("%w: index of %s: %d kinds of parts", ErrCorruptCheckpoint, tr.Name, len(tr.IndexParts))
	}
	im := &tableImages{ixPer: indexPartPages, keyPer: keyPartPages}
	prev := &tablePrev{}
	fail := func(err error) (*radixindex.Index, *tableImages, *tablePrev, error) {
		im.unmap()
		return nil, nil, nil, err
	}
	// offs[k][c] is page c's offset in its part.
	var offs [radixindex.ImageKinds][]int
	for k := range radixindex.ImageKinds {
		parts := tr.IndexParts[k]
		if want := (counts[k] + indexPartPages - 1) / indexPartPages; len(parts) != want {
			return fail(fmt.Errorf("%w: index of %s: %d parts of kind %d, its head says %d", ErrCorruptCheckpoint, tr.Name, len(parts), k, want))
		}
		offs[k] = make([]int, counts[k])
		prev.indexPages[k] = make([]pageSum, counts[k])
		prev.indexParts[k] = parts
		for s, pf := range parts {
			from, to := s*indexPartPages, min(counts[k], (s+1)*indexPartPages)
			size := 0
			for c := from; c < to; c++ {
				offs[k][c] = size
				size += radixindex.ImagePageSize(k, c) + 8
			}
			if pf.Len != size {
				return fail(fmt.Errorf("%w: index of %s: part %s of %d bytes, its pages %d", ErrCorruptCheckpoint, tr.Name, pf.File, pf.Len, size))
			}
			b, f, err := mapImageFile(filepath.Join(dir, pf.File), pf.Len)
			if err != nil {
				return fail(fmt.Errorf("index of %s: %w", tr.Name, err))
			}
			im.ixParts[k] = append(im.ixParts[k], &mapPart{b: b, f: f, name: pf.File, kind: k, from: from, to: to})
		}
	}
	// The key parts are mapped side by side: each reads its directory
	// (at the file's end), one read per part, latency-bound on a cold
	// cache (at 30M rows, 230 parts one after another: 1.8 s of a 2.9 s
	// restart).
	//
	// With the key directory file (keydir.go) the tails are read from it
	// at once and a part is mapped without reading any of it.
	var tails [][]byte
	if tr.KeyDirFile != "" {
		if tails, err = readKeyDirFile(dir, tr.KeyDirFile, tr.KeyDirLen, len(tr.KeyParts)); err != nil {
			return fail(fmt.Errorf("keys of %s: %w", tr.Name, err))
		}
	}
	type mappedKeys struct {
		part *mapPart
		ks   keyStore
		tail []byte
		err  error
	}
	kparts := make([]mappedKeys, len(tr.KeyParts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, keyPartMappers)
	for s, pf := range tr.KeyParts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			b, f, err := mapImageFile(filepath.Join(dir, pf.File), pf.Len)
			if err != nil {
				kparts[s].err = fmt.Errorf("keys of %s: %w", tr.Name, err)
				return
			}
			kparts[s].part = &mapPart{b: b, f: f, name: pf.File, key: true}
			if tails != nil {
				d, err := keyFileDirectoryTail(pf.Len, tails[s])
				if err != nil {
					kparts[s].err = fmt.Errorf("keys of %s: %s: %w", tr.Name, pf.File, err)
					return
				}
				kparts[s].ks, kparts[s].part.keyDir, kparts[s].tail = mapKeyFileDir(b, d), d, tails[s]
				kparts[s].part.keyTail = tails[s]
				return
			}
			if kparts[s].ks, err = mapKeyFile(b); err != nil {
				kparts[s].err = fmt.Errorf("keys of %s: %s: %w", tr.Name, pf.File, err)
				return
			}
			kparts[s].part.keyDir, _ = keyFileDirectory(b) // checked by mapKeyFile
			// Kept for the next checkpoint's key directory: a copy, the
			// mapping may be given back (releaseImages).
			kparts[s].tail = bytes.Clone(b[len(b)-keyFileTailLen(b):])
		}()
	}
	wg.Wait()
	var ks keyStore
	ks.mappedPer = keyPartPages
	var kerr error
	for s, kp := range kparts {
		if kp.part != nil {
			im.keyParts = append(im.keyParts, kp.part)
		}
		if kerr = cmp.Or(kerr, kp.err); kerr != nil {
			continue
		}
		if s < len(kparts)-1 && len(kp.ks.pages) != keyPartPages {
			kerr = fmt.Errorf("%w: keys of %s: part %s holds %d pages, want %d", ErrCorruptCheckpoint, tr.Name, kp.part.name, len(kp.ks.pages), keyPartPages)
			continue
		}
		ks.pages = append(ks.pages, kp.ks.pages...)
		prev.keyTails = append(prev.keyTails, kp.tail)
		ks.bytes += kp.ks.bytes
		ks.mapped = append(ks.mapped, kp.part.b)
	}
	if kerr != nil {
		return fail(kerr)
	}
	prev.keyParts = tr.KeyParts
	if tails != nil {
		prev.keyDir = partFile{File: tr.KeyDirFile, Len: tr.KeyDirLen}
	}
	prev.keyPages = make([]pageSum, len(ks.pages))
	for pi, pg := range ks.pages {
		if pg == nil {
			prev.keyPages[pi] = pageSum{ok: true}
		}
	}
	ix, err := radixindex.MapImageParts(head, func(k, c int) ([]byte, error) {
		part := im.ixParts[k][c/indexPartPages]
		off := offs[k][c]
		return part.b[off : off+radixindex.ImagePageSize(k, c)], nil
	}, func(dst []byte, id uint64) []byte { return t.keys.key(heap.RowID(id)) })
	if err != nil {
		return fail(fmt.Errorf("index of %s: %w", tr.Name, err))
	}
	t.keys = ks
	return ix, im, prev, nil
}
