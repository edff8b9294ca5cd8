package replication

import (
	"errors"
	"strings"
	"testing"
)

// TestPublicationGeneratedColumnsRefused: on PostgreSQL 18 a user's
// publication with publish_generated_columns = stored streams generated
// columns the copy leaves out, and the sidecar resynced such a table
// after every change, endlessly; it is refused naming the fix. With the
// option off (the default, and the sidecar's own publications) it is
// used as before.
func TestPublicationGeneratedColumnsRefused(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	ctx := t.Context()
	if v, err := ServerVersionNum(conn.PgConn()); err != nil || v < 180000 {
		t.Skipf("publish_generated_columns arrived in PostgreSQL 18 (server %d, %v)", v, err)
	}
	for _, s := range []string{
		"CREATE TABLE inc (id int PRIMARY KEY, a int, dbl int GENERATED ALWAYS AS (a * 2) STORED)",
		"CREATE PUBLICATION gen FOR TABLE inc WITH (publish_generated_columns = stored)",
		"CREATE PUBLICATION plain FOR TABLE inc",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	_, err := EnsurePublication(ctx, conn, PublicationSpec{Name: "gen", Tables: []string{"public.inc"}})
	if !errors.Is(err, ErrPublication) || !strings.Contains(err.Error(), "publish_generated_columns = none") {
		t.Errorf("publish_generated_columns = stored: %v, want ErrPublication naming the fix", err)
	}
	if _, err := EnsurePublication(ctx, conn, PublicationSpec{Name: "plain", Tables: []string{"public.inc"}}); err != nil {
		t.Errorf("publish_generated_columns off: %v", err)
	}
	if _, err := conn.Exec(ctx, "ALTER PUBLICATION gen SET (publish_generated_columns = none)"); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsurePublication(ctx, conn, PublicationSpec{Name: "gen", Tables: []string{"public.inc"}}); err != nil {
		t.Errorf("after SET (publish_generated_columns = none): %v", err)
	}
}
