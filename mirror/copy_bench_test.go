package mirror

import (
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// benchCopyRel is the replication benchmark's table: t(id bigint PK,
// k bytea, v text, score int).
func benchCopyRel() *wal.Relation {
	return &wal.Relation{OID: 16600, Schema: "public", Name: "t", Identity: wal.IdentityDefault,
		Columns: []wal.Column{
			{Name: "id", TypeOID: 20, TypeName: "int8", TypeMod: -1, Key: true},
			{Name: "k", TypeOID: 17, TypeName: "bytea", TypeMod: -1},
			{Name: "v", TypeOID: 25, TypeName: "text", TypeMod: -1},
			{Name: "score", TypeOID: 23, TypeName: "int4", TypeMod: -1},
		}}
}

// BenchmarkCopyOrdered1M: 1M rows shaped like the replication
// benchmark's (24-byte bytea as hex, 27-char text) through 4 concurrent
// ranges, each a contiguous id range (a serial key in heap order, what
// ctid ranges give), then TableCopied. ranges-s is the time until every
// range is closed, build-s the TableCopied after it. The rows are made
// before the timer starts: only the mirror's work is timed.
func BenchmarkCopyOrdered1M(b *testing.B) {
	rel := benchCopyRel()
	const rows, ranges = 1_000_000, 4
	rng := rand.New(rand.NewPCG(5, 6))
	type text struct{ k, v, id, score []byte }
	data := make([]text, rows)
	for i := range data {
		k := make([]byte, 24)
		for j := range k {
			k[j] = byte(rng.IntN(256))
		}
		v := make([]byte, 27)
		for j := range v {
			v[j] = byte('a' + rng.IntN(26))
		}
		data[i] = text{k: []byte(`\x` + hex.EncodeToString(k)), v: v, id: []byte(strconv.Itoa(i + 1)), score: []byte(strconv.Itoa(rng.IntN(1_000_000)))}
	}
	var rangesS, buildS time.Duration
	for b.Loop() {
		b.StopTimer()
		h := newMHarness(b, Options{})
		b.StartTimer()
		ranged, built := h.copyRanges(rel, ranges, func(r int, write func([]wal.Value) error) error {
			vals := make([]wal.Value, 4)
			for i := r * rows / ranges; i < (r+1)*rows/ranges; i++ {
				d := &data[i]
				vals[0] = wal.Value{Kind: wal.Text, Bytes: d.id}
				vals[1] = wal.Value{Kind: wal.Text, Bytes: d.k}
				vals[2] = wal.Value{Kind: wal.Text, Bytes: d.v}
				vals[3] = wal.Value{Kind: wal.Text, Bytes: d.score}
				if err := write(vals); err != nil {
					return err
				}
			}
			return nil
		})
		rangesS += ranged
		buildS += built
	}
	b.ReportMetric(rangesS.Seconds()/float64(b.N), "ranges-s/op")
	b.ReportMetric(buildS.Seconds()/float64(b.N), "build-s/op")
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
