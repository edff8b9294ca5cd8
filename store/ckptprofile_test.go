package store_test

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
)

// timedPages times a PageStore's writes: the images' batches and the
// manifest (whose write syncs the DB).
type timedPages struct {
	*store.HeapPages
	images, manifest time.Duration
}

func (p *timedPages) PutImages(table string, images []heap.PageImage) error {
	t0 := time.Now()
	err := p.HeapPages.PutImages(table, images)
	p.images += time.Since(t0)
	return err
}

func (p *timedPages) PutManifest(table string, gen, lsn uint64, m []byte) error {
	t0 := time.Now()
	err := p.HeapPages.PutManifest(table, gen, lsn, m)
	p.manifest += time.Since(t0)
	return err
}

// TestCheckpointWriteProfile times a heap checkpoint's parts on the scale
// bench's table shape (id, k, v, score, grp) with every page dirty, as
// the first checkpoint after a copy: encoding and compressing pages,
// writing the image batches into Badger, the manifest and its sync. It
// runs only with SIDECAR_CKPT_ROWS set (e.g. 10000000; run it with
// -cpuprofile for the CPU's share).
func TestCheckpointWriteProfile(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SIDECAR_CKPT_ROWS"))
	if n <= 0 {
		t.Skip("set SIDECAR_CKPT_ROWS to the number of rows")
	}
	schema := heap.Schema{Columns: []heap.Column{{Name: "id", Kind: heap.KindInt8}, {Name: "k", Kind: heap.KindText},
		{Name: "v", Kind: heap.KindText}, {Name: "score", Kind: heap.KindInt4}, {Name: "grp", Kind: heap.KindInt4}}}
	h, err := heap.New(schema, heap.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	const chunk = 100_000
	for from := 1; from <= n; from += chunk {
		b := heap.Batch{LSN: uint64(from)}
		for id := from; id < from+chunk && id <= n; id++ {
			sum := md5.Sum([]byte(strconv.Itoa(id)))
			row := rowenc.Encode([][]byte{strconv.AppendInt(nil, int64(id), 10), fmt.Appendf(nil, "key-%08d", id),
				fmt.Appendf(nil, "value-%d-%s", id, hex.EncodeToString(sum[:])), strconv.AppendInt(nil, int64(id*7919%1000), 10),
				strconv.AppendInt(nil, int64(id%100), 10)})
			b.Ops = append(b.Ops, heap.Op{Kind: heap.OpInsert, Row: row})
		}
		if _, err := h.Apply(b); err != nil {
			t.Fatal(err)
		}
	}
	db, err := store.Open(store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pages := &timedPages{HeapPages: db.HeapPages()}
	start := time.Now()
	st, err := h.CutCheckpoint().Write(pages, "t", 1, heap.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("rows %d: pages %d, %d MiB of images (%d MiB raw) in %d batches: took %s = encode+compress %s + image writes %s + manifest and sync %s",
		n, st.Pages, st.Bytes>>20, st.RawBytes>>20, st.Batches, took.Round(time.Millisecond),
		(took - pages.images - pages.manifest).Round(time.Millisecond), pages.images.Round(time.Millisecond), pages.manifest.Round(time.Millisecond))
}
