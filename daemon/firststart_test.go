package daemon

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A first start whose initial copy fails left its replication slot behind
// (issue 21, noticed): a slot nobody consumes holds WAL on the primary
// until someone drops it. The slot is dropped when the initial copy fails
// (the next start creates it again and copies every table).
func TestFailedFirstStartDropsItsSlot(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE ok (id int PRIMARY KEY)", "INSERT INTO ok VALUES (1)",
		// No columns: the copy refuses it (a table the copy cannot read).
		"CREATE TABLE nocols ()", "ALTER TABLE nocols REPLICA IDENTITY FULL")
	cfg := testConfig(t, url, "public.ok", "public.nocols")
	err := runRefused(t, Options{Config: cfg})
	if err == nil {
		t.Fatal("the first start did not fail")
	}
	t.Logf("first start: %v", err)
	ctx := context.Background()
	c, cerr := pgx.Connect(ctx, url)
	if cerr != nil {
		t.Fatal(cerr)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1", cfg.Slot).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("slot %q left behind by a failed first start", cfg.Slot)
	}
}
