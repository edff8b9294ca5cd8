package replication

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/wal"
)

// seedFlag replays a failing random test: go test ./replication -run X -seed N.
var seedFlag = seed.Flag()

// escapeCopy is COPY TO's text escaping (the model for the parser test).
func escapeCopy(b []byte) []byte {
	var out []byte
	for _, c := range b {
		switch c {
		case '\\':
			out = append(out, '\\', '\\')
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		case '\b':
			out = append(out, '\\', 'b')
		case '\f':
			out = append(out, '\\', 'f')
		case '\v':
			out = append(out, '\\', 'v')
		default:
			out = append(out, c)
		}
	}
	return out
}

// TestCopyParserRoundTrip encodes random rows the way COPY TO does, feeds
// them in random-sized writes, and expects the rows back.
func TestCopyParserRoundTrip(t *testing.T) {
	t.Parallel()
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 1))
	alphabet := []byte("ab\\\n\r\t\b\f\v N'\"x,é")
	const ncols = 4
	var want, got []string
	p := newCopyParser(ncols, func(vals []wal.Value) error {
		got = append(got, renderRow(vals))
		return nil
	})
	var stream []byte
	for r := 0; r < 500; r++ {
		vals := make([]wal.Value, ncols)
		for c := range vals {
			if rng.IntN(5) == 0 {
				vals[c] = wal.Value{Kind: wal.Null}
				stream = append(stream, `\N`...)
			} else {
				b := make([]byte, rng.IntN(12))
				for i := range b {
					b[i] = alphabet[rng.IntN(len(alphabet))]
				}
				vals[c] = wal.Value{Kind: wal.Text, Bytes: b}
				stream = append(stream, escapeCopy(b)...)
			}
			if c < ncols-1 {
				stream = append(stream, '\t')
			}
		}
		stream = append(stream, '\n')
		want = append(want, renderRow(vals))
	}
	for len(stream) > 0 {
		n := min(len(stream), 1+rng.IntN(40))
		if _, err := p.Write(stream[:n]); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		stream = stream[n:]
	}
	if err := p.finish(); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("seed %d: rows differ\n got %q\nwant %q", seed, got[:3], want[:3])
	}
}

func TestUnescapeCopy(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`plain`:        "plain",
		`a\\b`:         `a\b`,
		`\101\60\0x`:   "A0\x00x",
		`\x41\x4g\xz`:  "A\x04gxz",
		`\q`:           "q",
		`tab\there\n`:  "tab\there\n",
		`\b\f\r\v\\\N`: "\b\f\r\v\\N",
	} {
		got, err := unescapeCopy(nil, []byte(in))
		if err != nil || string(got) != want {
			t.Errorf("unescapeCopy(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := unescapeCopy(nil, []byte(`a\`)); err == nil {
		t.Error("lone trailing backslash accepted")
	}
	p := newCopyParser(2, func([]wal.Value) error { return nil })
	if _, err := p.Write([]byte("1\t2\t3\n")); err == nil {
		t.Error("row with 3 columns accepted for a 2-column table")
	}
	p = newCopyParser(1, func([]wal.Value) error { return nil })
	p.Write([]byte("partial"))
	if err := p.finish(); err == nil {
		t.Error("unterminated last row accepted")
	}
}

func TestSplitRanges(t *testing.T) {
	t.Parallel()
	a, b := wal.TableName{Schema: "s", Name: "a"}, wal.TableName{Schema: "s", Name: "b"}
	got := splitRanges([]copySource{{name: a, blocks: 10}, {name: b, blocks: 0}}, 4)
	want := []wal.BlockRange{
		{Source: a, Start: 0, End: 4, Index: 0, Of: 4},
		{Source: a, Start: 4, End: 8, Index: 1, Of: 4},
		{Source: a, Start: 8, Index: 2, Of: 4},
		{Source: b, Start: 0, Index: 3, Of: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("splitRanges:\n got %+v\nwant %+v", got, want)
	}
	if got := splitRanges([]copySource{{name: a, blocks: 8}}, 4); len(got) != 2 || got[1].End != 0 {
		t.Fatalf("exact multiple: %+v, want 2 ranges, the last open-ended", got)
	}
}

func TestAutoRangeBlocks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		blocks  uint64
		workers int
		want    uint32
	}{
		{0, 4, MinRangeBlocks},           // empty: one open range
		{3000, 4, MinRangeBlocks},        // 23 MiB: floor, 3 ranges
		{12_740, 4, 3185},                // the 1M-row baseline table: 4 ranges
		{12_741, 4, 3186},                // rounded up, never a 5th sliver
		{1 << 20, 4, DefaultRangeBlocks}, // 8 GiB: capped
		{100_000, 1, DefaultRangeBlocks}, // one worker: capped
		{uint64(DefaultRangeBlocks) * 4, 4, DefaultRangeBlocks},
	} {
		got := autoRangeBlocks(c.blocks, c.workers)
		if got != c.want {
			t.Errorf("autoRangeBlocks(%d, %d) = %d, want %d", c.blocks, c.workers, got, c.want)
		}
		ranges := len(splitRanges([]copySource{{blocks: uint32(c.blocks)}}, got))
		if c.blocks >= uint64(c.workers)*MinRangeBlocks && ranges < c.workers {
			t.Errorf("%d blocks, %d workers: %d ranges, want at least one per worker", c.blocks, c.workers, ranges)
		}
	}
}

// trickySchema and trickyInsert make values whose text forms exercise COPY escaping and
// the pinned settings: tabs, newlines, backslashes, NULL vs ”, bytea,
// arrays, timestamps, floats, intervals.
const trickySchema = `CREATE TABLE tricky (
	id bigint PRIMARY KEY, t text, b bytea, arr text[], ts timestamptz, d date,
	f float8, iv interval, n numeric, j jsonb, filler text)`

const trickyInsert = `INSERT INTO tricky VALUES
	(1, E'tab\there', '\x00ff5c0a'::bytea, ARRAY['a,b', 'c"d', NULL, E'back\\slash', ''], '2026-11-30 10:00:00.123456+02', '2026-11-30', 0.1, '1 day 02:03:04.5', 1.50, '{"k": "v\n"}', ''),
	(2, E'new\nline\r\n', ''::bytea, '{}', 'infinity', '-infinity', 'NaN', '-1 mons', 'NaN', 'null', NULL),
	(3, E'back\\slash \\N', NULL, NULL, NULL, NULL, 1e300, NULL, 123456789012345678901234567890.000001, '[1, 2.50]', NULL),
	(4, '', E'\\x5c4e'::bytea, ARRAY[E'\t'], '1999-01-08 04:05:06+00', '0044-03-15 BC', -0.0, '0', -0.0, '{}', NULL),
	(5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(6, E'\\N', NULL, NULL, NULL, NULL, 3.141592653589793, NULL, NULL, NULL, NULL)`

var trickyCols = []string{"id", "t", "b", "arr", "ts", "d", "f", "iv", "n", "j", "filler"}

// TestCopySplitRangesExact copies a table split into many ctid ranges by
// several workers under a slot's exported snapshot and compares every value
// with PostgreSQL's own text output. Rows written after the slot was
// created must not appear.
func TestCopySplitRangesExact(t *testing.T) {
	t.Parallel()
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	mustExec(t, conn, trickySchema, trickyInsert,
		`INSERT INTO tricky (id, t, f, filler) SELECT g, 'row ' || g, g / 7.0, repeat('x', 200) FROM generate_series(100, 3000) g`,
		"ANALYZE tricky")
	if _, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "pub", Tables: []string{"public.tricky"}}); err != nil {
		t.Fatal(err)
	}
	want := rowsOf(t, url, "tricky", trickyCols)

	snap, err := CreateSlot(t.Context(), url, "main_copy")
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close(t.Context())
	// Changes after the consistent point are for the stream, not the copy.
	mustExec(t, conn, "INSERT INTO tricky (id, t) VALUES (99999, 'late')", "DELETE FROM tricky WHERE id = 1")

	sink := newMemCopySink()
	var progress []CopyProgress
	err = Copy(t.Context(), CopyOptions{ConnString: url, Workers: 3, RangeBlocks: 8,
		Progress: func(p CopyProgress) { progress = append(progress, p) }},
		snap.Snapshot(), []wal.TableName{{Schema: "public", Name: "tricky"}}, sink)
	if err != nil {
		t.Fatal(err)
	}
	got := sink.sorted("public.tricky")
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("row %d differs:\n got %s\nwant %s", i, got[i], want[i])
			}
		}
		t.Fatalf("copied %d rows, want %d", len(got), len(want))
	}
	if n := len(sink.ranges["public.tricky"]); n < 5 {
		t.Fatalf("table copied in %d ranges, want several (RangeBlocks 8)", n)
	}
	if at := sink.copied["public.tricky"]; at != snap.LSN {
		t.Fatalf("TableCopied at %s, want the consistent point %s", at, snap.LSN)
	}
	last := progress[len(progress)-1]
	if !last.Done || last.Rows != int64(len(want)) || last.RangesDone != last.Ranges || last.Bytes < 3000*200 ||
		last.EstimatedRows < 2000 || last.EstimatedRows > 4000 {
		t.Fatalf("final progress %+v, want done with %d rows", last, len(want))
	}
	rel := sink.rels["public.tricky"]
	if rel.Identity != wal.IdentityDefault || len(rel.Columns) != len(trickyCols) || !rel.Columns[0].Key || rel.Columns[1].Key ||
		rel.Columns[0].TypeName != "int8" || rel.Columns[3].TypeName != "_text" {
		t.Fatalf("relation described as %+v", rel)
	}
}

// BenchmarkCopyParser is a coarse throughput figure for the COPY text parser.
func BenchmarkCopyParser(b *testing.B) {
	line := []byte("123456\t\\\\x0102030405060708090a0b0c0d0e0f1011121314151617\tabcdefghijklmnopqrstuvwxyz0\t4711\n")
	data := bytes.Repeat(line, 1000)
	p := newCopyParser(4, func([]wal.Value) error { return nil })
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := p.Write(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "rows/s")
}

// failingSink fails the row after `after` rows.
type failingSink struct {
	*memCopySink
	after int
	n     atomic.Int64
}

var errSinkFull = errors.New("sink full")

func (f *failingSink) CopyRange(ctx context.Context, rel *wal.Relation, r wal.BlockRange) (wal.RowWriter, error) {
	w, err := f.memCopySink.CopyRange(ctx, rel, r)
	return &failingWriter{RowWriter: w, f: f}, err
}

type failingWriter struct {
	wal.RowWriter
	f *failingSink
}

func (w *failingWriter) WriteRow(v []wal.Value) error {
	if w.f.n.Add(1) > int64(w.f.after) {
		return errSinkFull
	}
	return w.RowWriter.WriteRow(v)
}

// TestCopySinkError: a failing sink stops every worker, aborts the open
// ranges and reports no table as copied.
func TestCopySinkError(t *testing.T) {
	t.Parallel()
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	mustExec(t, conn, "CREATE TABLE big (id int PRIMARY KEY, pad text)",
		"INSERT INTO big SELECT g, repeat('p', 100) FROM generate_series(1, 20000) g")
	snap, err := CreateSlot(t.Context(), url, "copyfail")
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close(t.Context())
	sink := &failingSink{memCopySink: newMemCopySink(), after: 5000}
	err = Copy(t.Context(), CopyOptions{ConnString: url, Workers: 3, RangeBlocks: 16}, snap.Snapshot(), []wal.TableName{{Schema: "public", Name: "big"}}, sink)
	if !errors.Is(err, errSinkFull) {
		t.Fatalf("Copy with a failing sink: %v", err)
	}
	if len(sink.copied) != 0 || sink.aborted == 0 {
		t.Fatalf("after a failed copy: copied %v, %d ranges aborted", sink.copied, sink.aborted)
	}
}

// FuzzCopyParser: arbitrary input never panics the COPY parser, and any
// row of arbitrary byte strings escaped the way COPY TO does parses back
// to the same values, whatever the write boundaries.
func FuzzCopyParser(f *testing.F) {
	f.Add([]byte("a\tb\\n\n"), []byte("x\\"), []byte{0, '\t', '\n'}, uint8(3))
	f.Add([]byte(`\N`), []byte(""), []byte("\\x41\\101"), uint8(1))
	f.Fuzz(func(t *testing.T, a, b, c []byte, split uint8) {
		// Arbitrary bytes as COPY data: errors are fine, panics are not.
		p := newCopyParser(3, func([]wal.Value) error { return nil })
		p.Write(append(append(append([]byte{}, a...), '\t'), b...))
		p.finish()

		var got []wal.Value
		p = newCopyParser(3, func(vals []wal.Value) error {
			got = cloneVals(vals)
			return nil
		})
		var line []byte
		for i, v := range [][]byte{a, b, c} {
			if i > 0 {
				line = append(line, '\t')
			}
			line = append(line, escapeCopy(v)...)
		}
		line = append(line, '\n')
		n := int(split) % len(line)
		if _, err := p.Write(line[:n]); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Write(line[n:]); err != nil {
			t.Fatal(err)
		}
		if err := p.finish(); err != nil {
			t.Fatal(err)
		}
		for i, v := range [][]byte{a, b, c} {
			if got[i].Kind != wal.Text || !bytes.Equal(got[i].Bytes, v) {
				t.Fatalf("field %d: got %q, want %q", i, got[i].Bytes, v)
			}
		}
	})
}
