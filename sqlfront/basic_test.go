package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestBasicSelect(t *testing.T) {
	r := newRig(t, []string{"public.accounts"}, []string{
		"CREATE TABLE accounts (id int PRIMARY KEY, name text, balance numeric(12,2))",
		"INSERT INTO accounts SELECT g, 'n' || g, g * 1.5 FROM generate_series(1, 100) g",
	})
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, r.sqlURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var name string
	var n int64
	if err := conn.QueryRow(ctx, "SELECT name FROM accounts WHERE id = $1", 7).Scan(&name); err != nil || name != "n7" {
		t.Fatalf("point: %q %v", name, err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM accounts WHERE id BETWEEN 10 AND 19").Scan(&n); err != nil || n != 10 {
		t.Fatalf("count: %d %v", n, err)
	}
}
