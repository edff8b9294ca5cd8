package sqlfront_test

import (
	"context"
	"strings"
	"testing"
)

// TestEnumBinaryFormat (issue 21): a column of an enum, or of a domain
// over one, asked for in binary format answers enum_send's bytes (the
// label), as PostgreSQL does, through the simple row path, ORDER BY and
// a change replicated after the copy; an array of an enum and a range
// stay refused (their send forms hold what the text does not say).
// Before, every such column was refused 0A000 in binary format.
func TestEnumBinaryFormat(t *testing.T) {
	r := newRig(t, []string{"public.en"}, []string{
		`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy', 'très content')`,
		`CREATE DOMAIN dmood AS mood`,
		`CREATE TYPE floatrange AS RANGE (subtype = float8)`,
		`CREATE TABLE en (id int PRIMARY KEY, m mood, dm dmood, ma mood[], fr floatrange)`,
		`INSERT INTO en VALUES (1, 'ok', 'sad', '{ok,sad}', '[1,2)'), (2, 'happy', NULL, NULL, NULL), (3, NULL, 'happy', '{}', 'empty')`,
	}, []string{
		`INSERT INTO en VALUES (4, 'très content', 'très content', NULL, NULL)`,
	})
	ctx := context.Background()
	conns := connectBoth(t, r)
	pgc, sc := conns["postgresql"], conns["sidecar"]
	bin := []int16{1}
	for _, q := range []string{
		"SELECT m, dm FROM en ORDER BY id",
		"SELECT id, m FROM en WHERE id = 4",
		"SELECT dm FROM en WHERE dm IS NOT NULL ORDER BY id DESC",
	} {
		want := pgc.ExecParams(ctx, q, nil, nil, nil, bin).Read()
		if want.Err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, want.Err)
		}
		got := sc.ExecParams(ctx, q, nil, nil, nil, bin).Read()
		if got.Err != nil {
			t.Errorf("sidecar, binary format: %s: %v", q, got.Err)
			continue
		}
		if g, w := strings.Join(rowsText(got), "\n"), strings.Join(rowsText(want), "\n"); g != w {
			t.Errorf("sidecar, binary format: %s:\n got %q\nwant %q", q, g, w)
		}
	}
	for _, q := range []string{"SELECT ma FROM en WHERE id = 1", "SELECT fr FROM en WHERE id = 1"} {
		got := sc.ExecParams(ctx, q, nil, nil, nil, bin).Read()
		if got.Err == nil || pgCode(got.Err) != "0A000" {
			t.Errorf("sidecar, binary format: %s: %q, %v; want 0A000", q, rowsText(got), got.Err)
		}
	}
}
