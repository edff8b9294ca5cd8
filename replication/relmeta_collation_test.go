package replication

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/libccoll"
	"github.com/sidecar-dev/sidecar/internal/testenv"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestReadFactsLibcProven (issue 22 item 5): in a database whose default
// is the libc locale en_US.UTF-8, the copy proves the order (the server's
// collation version is this host's glibc, the probe sorts alike) and
// records wal.CollLibc with the version, for the default and for a
// column COLLATE "en_US"; a column COLLATE "C" stays byte order; a
// version that differs from this host's leaves the order unproven.
func TestReadFactsLibcProven(t *testing.T) {
	if _, err := libccoll.Open("en_US.UTF-8"); err != nil {
		testenv.Missing(t, err.Error(), "install Debian's locales package and generate en_US.UTF-8 (.ci/run does)")
	}
	conn := sqlConn(t, pg.URL("postgres"))
	ctx := t.Context()
	name := fmt.Sprintf("libc_default_%d", rand.Uint32())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 LOCALE 'en_US.UTF-8' ENCODING 'UTF8'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pg.DropDB(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	db := sqlConn(t, pg.URL(name))
	if !collationExists(t, db, "en_US") {
		t.Skip("the server has no en_US collation (initdb ran before the locale was generated)")
	}
	if _, err := db.Exec(ctx, `CREATE TABLE d (id int PRIMARY KEY, s text, c text COLLATE "C", e text COLLATE "en_US")`); err != nil {
		t.Fatal(err)
	}
	rel := relationOf(t, db, "d")
	v := libccoll.Version()
	if def := rel.Facts.Default; def.Order != wal.CollLibc || def.Version != v || def.Locale != "libc en_US.UTF-8" {
		t.Errorf("default %+v: want proven libc en_US.UTF-8 under glibc %s", def, v)
	}
	if s := rel.Columns[1].Collation; s.Name != "default" || s.Order != wal.CollLibc || s.Version != v {
		t.Errorf("column s: %+v, want the proven default", s)
	}
	if c := rel.Columns[2].Collation; c.Order != wal.CollBytes {
		t.Errorf("column c: %+v, want byte order", c)
	}
	if e := rel.Columns[3].Collation; e.Name != "en_US" || e.Order != wal.CollLibc || e.Version != v {
		t.Errorf("column e: %+v, want proven libc en_US", e)
	}
	other := wal.Collation{Name: "default", Locale: "libc en_US.UTF-8", Order: wal.CollOther}
	got, err := proveLibc(ctx, db, other, "en_US.UTF-8", `pg_catalog."default"`, "1.99")
	if err != nil || got != other {
		t.Errorf("another glibc version: %+v, %v; want unproven", got, err)
	}
}
