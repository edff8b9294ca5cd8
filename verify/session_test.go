package verify

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// TestSessionMatchesStream ties invariant 5's settings together: the
// sessions verify opens (its workers and its replication connection) run
// with exactly the settings the stream's and the copy's connections run
// with, rowenc.SessionParams, even when the database's defaults and the
// connection string (with names spelled in another case) say otherwise,
// and the values they render are byte-identical.
func TestSessionMatchesStream(t *testing.T) {
	t.Parallel()
	url := pg.NewDB(t)
	admin := connect(t, url, nil)
	db := string(mustQuery(t, admin, "SELECT current_database()")[0][0])
	mustExec(t, admin, "ALTER DATABASE "+wal.QuoteIdent(db)+" SET TimeZone = 'America/New_York';"+
		"ALTER DATABASE "+wal.QuoteIdent(db)+" SET DateStyle = 'SQL, DMY';"+
		"ALTER DATABASE "+wal.QuoteIdent(db)+" SET extra_float_digits = 0;"+
		"ALTER DATABASE "+wal.QuoteIdent(db)+" SET bytea_output = 'escape'")
	hostile := url + "&timezone=Asia/Tokyo&intervalstyle=iso_8601"

	names := slices.Sorted(maps.Keys(rowenc.SessionParams()))
	probe := "SELECT " +
		"'2024-02-29 12:34:56.789+00'::timestamptz::text, '2024-02-29'::date::text, " +
		"0.1::float8::text, interval '1 day 02:03:04'::text, '\\x00ff'::bytea::text"
	for _, n := range names {
		probe += ", current_setting('" + n + "')"
	}
	render := func(conn *pgconn.PgConn) []string {
		t.Helper()
		rows := mustQuery(t, conn, probe)
		out := make([]string, len(rows[0]))
		for i, v := range rows[0] {
			out[i] = string(v)
		}
		return out
	}

	cfg, err := pgconn.ParseConfig(hostile)
	if err != nil {
		t.Fatal(err)
	}
	workers, err := connectWorkers(t.Context(), cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeConns(context.Background(), workers) })
	vrep, err := connectReplication(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vrep.Close(context.Background()) })
	copyConn, err := replication.Connect(t.Context(), hostile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { copyConn.Close(context.Background()) })
	streamConn, err := replication.ConnectReplication(t.Context(), hostile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { streamConn.Close(context.Background()) })

	want := render(copyConn.PgConn())
	for i, n := range names {
		if got, pinned := want[5+i], rowenc.SessionParams()[n]; !settingMatches(n, pinned, got) {
			t.Errorf("copy connection: %s = %q, want %q", n, got, pinned)
		}
	}
	for name, conn := range map[string]*pgconn.PgConn{"verify worker": workers[0], "verify replication": vrep, "stream": streamConn} {
		if got := render(conn); !slices.Equal(got, want) {
			t.Errorf("%s renders %q, the copy connection %q", name, got, want)
		}
		if err := CheckSession(t.Context(), conn); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// settingMatches is SHOW's spelling of a pinned setting: DateStyle "ISO"
// shows as "ISO, MDY".
func settingMatches(name, want, got string) bool {
	if name == "DateStyle" {
		return len(got) >= len(want) && got[:len(want)] == want
	}
	return got == want
}
