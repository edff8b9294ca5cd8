package history

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
	"github.com/sidecar-dev/sidecar/mirror"
)

// BenchmarkDiff10k measures a diff of 10k random changes in a 200k-row
// table, per output format (b.N diffs).
func BenchmarkDiff10k(b *testing.B) {
	const n, changes = 200_000, 10_000
	rng := rand.New(rand.NewPCG(3, 4))
	f := historytest.NewSized(b, 256<<20)
	svc := New(f.DB, f.Mirror)
	rel := historytest.Rel(1, "public", "big", 1, [2]string{"id", "int8"}, [2]string{"v", "text"}, [2]string{"n", "numeric"})
	rows := make([][]*string, 0, n)
	for id := range n {
		rows = append(rows, []*string{historytest.S(strconv.Itoa(id)), historytest.S(fmt.Sprintf("value %d", id)), historytest.S(strconv.Itoa(id % 1000))})
	}
	f.CreateTable(rel, rows)
	// A transaction that changes no row is no version: from rewrites row 0 as it is.
	from := f.Commit(func(tx *historytest.Tx) {
		tx.Upsert(rel, []*string{historytest.S("0"), historytest.S("value 0"), historytest.S("0")})
	}).EndLSN.String()
	var last mirror.Version
	for range changes / 1000 {
		last = f.Commit(func(tx *historytest.Tx) {
			for range 1000 {
				tx.Upsert(rel, []*string{historytest.S(strconv.Itoa(rng.IntN(n))), historytest.S(fmt.Sprintf("changed %d", rng.Int())), historytest.S("1")})
			}
		})
	}
	to := last.EndLSN.String()
	// A file, as stdout is: a writer that buffers nothing costs a system
	// call per write.
	out, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	for _, format := range []string{"stat", "json", "sql", "table"} {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				req := DiffRequest{From: from, To: to, Stat: format == "stat"}
				wf := format
				if wf == "stat" {
					wf = "json"
				}
				w, _ := NewDiffWriter(wf, out)
				if _, err := svc.Diff(b.Context(), req, w.Write); err != nil {
					b.Fatal(err)
				}
				w.Close()
			}
		})
	}
}
