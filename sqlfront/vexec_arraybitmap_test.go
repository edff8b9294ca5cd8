package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestArraySliceNullBitmapBinary (s27 item 2): PostgreSQL's
// array_get_slice keeps the source array's null bitmap, so a slice
// without NULL elements of an array that had some is sent by array_send
// with the has-nulls flag 1 (tuplesort.sql's (array_agg(…))[0:5]);
// array_cat and array_append/prepend keep it too. sql/exec's result
// reached the wire as text, which reads back without the bitmap: the
// sidecar sent flag 0 (on 781ae99: `00000001 00000000 …` where
// PostgreSQL sent `00000001 00000001 …`). Every query is compared byte
// for byte with PostgreSQL in text and in binary result format (or
// refused 0A000).
func TestArraySliceNullBitmapBinary(t *testing.T) {
	r := newRig(t, []string{"public.abm"}, []string{
		"CREATE TABLE abm (id int PRIMARY KEY, v int, a int[], s text[])",
		"INSERT INTO abm VALUES (1, 10, '{1,2,NULL}', '{a,NULL,c}'), (2, NULL, '{4,5,6}', '{d,e}'), (3, 30, '{NULL}', '{}'), (4, 40, NULL, '{f,NULL}')",
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	queries := []string{
		// The slice of an aggregate that saw a NULL (tuplesort.sql).
		"SELECT (array_agg(v ORDER BY id DESC NULLS FIRST))[0:1] FROM abm",
		"SELECT (array_agg(v ORDER BY id DESC NULLS LAST))[0:2] FROM abm",
		"SELECT (array_agg(v::text ORDER BY id))[1:1] FROM abm",
		"SELECT (array_agg(v ORDER BY id))[1:1] FROM abm WHERE v IS NOT NULL",
		// Slices of stored arrays.
		"SELECT id, a[1:2], a[2:2], a[3:3], a[5:6], s[1:1], s[3:3] FROM abm ORDER BY id",
		"SELECT id, a[1:2] FROM abm ORDER BY a[1:2], id",
		// What keeps the bitmap on: concatenation, append, prepend.
		"SELECT id, a[1:2] || ARRAY[7], ARRAY[7] || a[1:2], array_cat(a[1:2], '{}'), array_cat('{}', a[1:2]), array_cat(a[2:2], a[1:1]) FROM abm ORDER BY id",
		"SELECT id, array_append(a[1:2], 7), array_prepend(7, a[1:2]), array_append(a[4:5], 7), a[1:2] || 8 FROM abm ORDER BY id",
		"SELECT id, (a[1:2])[1:1], (a || ARRAY[9])[4:4] FROM abm ORDER BY id",
	}
	for _, q := range queries {
		for _, format := range []int16{0, 1} {
			want := conns["postgresql"].ExecParams(ctx, q, nil, nil, nil, []int16{format}).Read()
			if want.Err != nil {
				t.Fatalf("%s on PostgreSQL: %v", q, want.Err)
			}
			got := conns["sidecar"].ExecParams(ctx, q, nil, nil, nil, []int16{format}).Read()
			if got.Err != nil {
				if pe, ok := got.Err.(*pgconn.PgError); ok && pe.Code == "0A000" {
					t.Logf("refused %s (format %d): %v", q, format, pe.Message)
					continue
				}
				t.Errorf("%s (format %d): %v", q, format, got.Err)
				continue
			}
			if !sameRows(want.Rows, got.Rows) {
				t.Errorf("%s in format %d:\n  sidecar    %x\n  PostgreSQL %x", q, format, got.Rows, want.Rows)
			}
		}
	}
}
