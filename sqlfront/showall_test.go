package sqlfront_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// showAll reads SHOW ALL: its column names and name → setting.
func showAll(t *testing.T, url string) ([]string, map[string]string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SHOW ALL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	settings := map[string]string{}
	for rows.Next() {
		var name, setting, desc string
		if err := rows.Scan(&name, &setting, &desc); err != nil {
			t.Fatal(err)
		}
		settings[name] = setting
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, settings
}

// Issue 23 item 3: SHOW ALL answers as PostgreSQL's: the same columns,
// and the same value for the settings both report that sidecar keeps as
// PostgreSQL does.
func TestShowAll(t *testing.T) {
	r := historyRig(t)
	pgCols, pgSet := showAll(t, r.pgURL)
	scCols, scSet := showAll(t, r.sqlURL)
	if len(pgCols) != len(scCols) || pgCols[0] != scCols[0] || pgCols[1] != scCols[1] || pgCols[2] != scCols[2] {
		t.Errorf("SHOW ALL columns %v, PostgreSQL %v", scCols, pgCols)
	}
	for _, name := range []string{"server_encoding", "client_encoding", "standard_conforming_strings", "integer_datetimes", "IntervalStyle", "DateStyle", "TimeZone", "bytea_output", "max_identifier_length"} {
		if scSet[name] != pgSet[name] {
			t.Errorf("SHOW ALL %s: %q, PostgreSQL %q", name, scSet[name], pgSet[name])
		}
	}
	if _, ok := scSet["sidecar.as_of"]; !ok {
		t.Errorf("SHOW ALL lacks sidecar.as_of: %v", scSet)
	}
}
