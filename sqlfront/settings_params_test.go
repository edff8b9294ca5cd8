package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// settingsScript runs stmts one by one (simple protocol) on one new session
// of url: each one's rows (text, "|" between columns) or its error
// ("ERROR <SQLSTATE> <message>").
func settingsScript(t *testing.T, url string, stmts []string) []string {
	t.Helper()
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var out []string
	for _, q := range stmts {
		res, err := c.Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			out = append(out, fmt.Sprintf("ERROR %s %s", pe.Code, pe.Message))
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var rows []string
		for _, r := range res {
			for _, row := range r.Rows {
				var f []string
				for _, v := range row {
					if v == nil {
						f = append(f, "NULL")
					} else {
						f = append(f, string(v))
					}
				}
				rows = append(rows, strings.Join(f, "|"))
			}
		}
		out = append(out, strings.Join(rows, "\n"))
	}
	return out
}

// Issues 21 and 23: SET, RESET, SET LOCAL and set_config check and print
// a parameter's value as PostgreSQL does (units, Booleans, enums, reals,
// the contexts in which it may be set), and SHOW, current_setting and
// pg_settings of a parameter never SET print the followed server's value.
// Before: SET nosuch = 1 and SET work_mem = 'abc' answered SET, SHOW
// work_mem after SET work_mem = 65536 printed 65536 (PostgreSQL 64MB),
// SHOW shared_buffers answered 42704, set_config(…, true) was refused.
// PostgreSQL runs as a role that is not a superuser, as sidecar's
// sessions are not (is_superuser off). Each script runs on one session
// of each; a step sidecar refuses (0A000) is listed in refused.
func TestSettingsAsPostgreSQL(t *testing.T) {
	dbURL, sqlURL := followLive(t) // show_version_test.go
	execSQL(t, dbURL, "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'settings_plain') THEN CREATE ROLE settings_plain LOGIN; END IF; END $$")
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User("settings_plain")
	pgURL := u.String()

	scripts := [][]string{
		{"SET nosuch = 1", "SHOW nosuch", "SELECT current_setting('nosuch')", "SELECT current_setting('nosuch', true) IS NULL", "RESET nosuch"},
		{"SET my.custom = 'x'", "SHOW my.custom", "SELECT current_setting('my.custom')"},
		{"SET work_mem = 'abc'", "SET work_mem = '10 parsecs'", "SET work_mem = 1", "SET work_mem = '99999999999'", "SET enable_seqscan = maybe", "SET jit = 'sometimes'",
			"SET client_min_messages = 'loud'", "SET random_page_cost = -1", "SET random_page_cost = 'x'", "SET lock_timeout = '1 fortnight'"},
		{"SET work_mem = 65536", "SHOW work_mem", "SELECT current_setting('work_mem')", "SET work_mem = '1.5GB'", "SHOW work_mem",
			"SET work_mem = '010'", "SHOW work_mem", "SET work_mem = '100000kB'", "SHOW work_mem",
			"SELECT name, setting, unit FROM pg_settings WHERE name = 'work_mem'"},
		{"SET enable_seqscan = 1", "SHOW enable_seqscan", "SET enable_seqscan = 'of'", "SHOW enable_seqscan", "SET enable_seqscan = 'YES'", "SHOW enable_seqscan",
			"SET client_min_messages = 'WARNING'", "SHOW client_min_messages", "SET synchronous_commit = true", "SHOW synchronous_commit",
			"SET random_page_cost = '1.50'", "SHOW random_page_cost", "SET cursor_tuple_fraction = 0.25", "SHOW cursor_tuple_fraction",
			"SET lock_timeout = '90s'", "SHOW lock_timeout", "SET lock_timeout = '1.5h'", "SHOW lock_timeout", "SET lock_timeout = 120000", "SHOW lock_timeout",
			"SET temp_buffers = 1000", "SHOW temp_buffers", "SET effective_cache_size = '2GB'", "SHOW effective_cache_size",
			"SET vacuum_cost_delay = '1500us'", "SHOW vacuum_cost_delay", "SET geqo_seed = 0.5", "SHOW geqo_seed"},
		{"SHOW work_mem", "SHOW shared_buffers", "SHOW lock_timeout", "SHOW jit", "SHOW block_size", "SELECT current_setting('max_connections')",
			"SHOW max_wal_size", "SHOW wal_level", "SHOW random_page_cost", "SHOW client_min_messages", "SHOW enable_hashjoin", "SHOW seed", "SHOW role"},
		{"SET shared_buffers = '1GB'", "SET block_size = 1", "SET wal_level = minimal", "SET autovacuum = off", "SET max_connections = 10",
			"SET log_min_duration_statement = 100", "SET session_replication_role = replica", "SET jit_debugging_support = on",
			"RESET shared_buffers", "SET server_version = '1'", "SET is_superuser = on"},
		{"SET work_mem = '1GB'", "RESET work_mem", "SHOW work_mem", "SET work_mem TO DEFAULT", "SHOW work_mem",
			"SET enable_seqscan = off", "RESET ALL", "SHOW enable_seqscan"},
		{"BEGIN", "SET LOCAL work_mem = '8MB'", "SHOW work_mem", "COMMIT", "SHOW work_mem",
			"BEGIN", "SET work_mem = '12MB'", "ROLLBACK", "SHOW work_mem"},
		{"SELECT set_config('work_mem', '16MB', false)", "SHOW work_mem",
			"BEGIN", "SELECT set_config('work_mem', '32MB', true)", "SHOW work_mem", "ROLLBACK", "SHOW work_mem",
			"SELECT set_config('work_mem', '2GB', true)", "SHOW work_mem",
			"SELECT set_config('nosuch', '1', false)", "SELECT set_config('work_mem', 'abc', false)", "SELECT set_config('enable_seqscan', '1', false)"},
		{"SELECT name, setting, unit, vartype, context, min_val, max_val, enumvals FROM pg_settings WHERE name IN " +
			"('work_mem', 'enable_seqscan', 'client_min_messages', 'random_page_cost', 'shared_buffers', 'lock_timeout', 'block_size', 'IntervalStyle') ORDER BY name",
			"SET work_mem = '64MB'", "SET lock_timeout = '2s'", "SELECT name, setting FROM pg_settings WHERE name IN ('work_mem', 'lock_timeout') ORDER BY name"},
	}
	// refused are steps sidecar may refuse (0A000) where PostgreSQL answers.
	refused := map[string]bool{}
	for _, sc := range scripts {
		want := settingsScript(t, pgURL, sc)
		got := settingsScript(t, sqlURL, sc)
		for i, q := range sc {
			if got[i] != want[i] && !(refused[q] && strings.HasPrefix(got[i], "ERROR 0A000")) {
				t.Errorf("%s:\n  sidecar    %q\n  PostgreSQL %q", q, got[i], want[i])
			}
		}
	}
}

// A parameter whose server value sidecar has not read (no daemon reached
// the server: the rig serves without SessionDefaults) is refused 0A000
// naming it, never 42704 as if PostgreSQL had no such parameter; one
// SET in the session prints as PostgreSQL prints it; a name PostgreSQL
// does not have is 42704.
func TestSettingsServerValueUnknown(t *testing.T) {
	r := historyRig(t)
	got := settingsScript(t, r.sqlURL, []string{"SHOW work_mem", "SELECT current_setting('shared_buffers')", "SHOW nosuch",
		"SET work_mem = 65536", "SHOW work_mem", "RESET work_mem", "SHOW work_mem", "SHOW TimeZone"})
	want := []string{"ERROR 0A000 SHOW of parameter \"work_mem\"", "ERROR 0A000 SHOW of parameter \"shared_buffers\"",
		"ERROR 42704 unrecognized configuration parameter \"nosuch\"", "", "64MB", "", "ERROR 0A000 SHOW of parameter \"work_mem\"", "UTC"}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) || (want[i] == "" && got[i] != "") {
			t.Errorf("step %d: %q, want %q…", i, got[i], want[i])
		}
	}
}
