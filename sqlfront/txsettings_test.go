package sqlfront_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTransactionSettings: settings follow transactions as PostgreSQL's
// do — a SET in a rolled-back transaction (explicit ROLLBACK, a failed
// transaction's COMMIT, a multi-statement query whose later statement
// fails, ROLLBACK TO an earlier savepoint) is undone; SET LOCAL lasts to
// the transaction's end (a WARNING and no effect outside one); RESET ALL
// and DISCARD ALL go back to the session's start (application_name,
// search_path … stayed);
// SAVEPOINT/RELEASE/ROLLBACK TO work and fail as PostgreSQL's; DISCARD
// ALL resets the settings (a pooler's reset between clients); command
// tags of DEALLOCATE ALL, CLOSE ALL and DISCARD PLANS; SHOW
// statement_timeout in PostgreSQL's units. psql's output (each -c its own
// simple query, errors not stopping the script) compared with
// PostgreSQL's. Before: a SET survived ROLLBACK (the session kept
// printing timestamps in the rolled-back TimeZone), SET LOCAL and
// savepoints were refused, DISCARD ALL kept every setting, and SHOW
// statement_timeout printed "6" where PostgreSQL prints "6ms".
func TestTransactionSettings(t *testing.T) {
	r := newRig(t, []string{"public.ev"}, []string{
		"CREATE TABLE ev (id int PRIMARY KEY, at timestamptz)",
		"INSERT INTO ev VALUES (1, '2024-03-01 12:00:00+00'), (2, '2024-07-01 23:30:00+00')",
	})
	scripts := [][]string{
		{"BEGIN", "SET TimeZone = 'UTC+9'", "ROLLBACK", "SHOW TimeZone", "SELECT at FROM ev ORDER BY id"},
		{"BEGIN", "SET TimeZone = 'UTC+9'", "SELECT 1/0", "COMMIT", "SHOW TimeZone", "SELECT at FROM ev ORDER BY id"},
		{"BEGIN", "SELECT set_config('TimeZone', '-05:30', false)", "ROLLBACK", "SELECT at FROM ev ORDER BY id"},
		{"BEGIN", "SET TimeZone = 'UTC+9'", "COMMIT", "SELECT at FROM ev ORDER BY id"},
		{"SET TimeZone = '-05:30'; SELECT 1/0", "SHOW TimeZone", "SELECT at FROM ev ORDER BY id"},
		{"SET TimeZone = '-05:30'; SELECT at FROM ev ORDER BY id", "SHOW TimeZone"},
		{"SET LOCAL TimeZone = 'UTC+9'", "SHOW TimeZone"},
		{"SET LOCAL TimeZone = 'UTC+9'; SELECT at FROM ev ORDER BY id", "SHOW TimeZone"},
		{"BEGIN", "SET LOCAL TimeZone = 'UTC+9'", "SELECT at FROM ev ORDER BY id", "COMMIT", "SHOW TimeZone"},
		{"BEGIN", "SET LOCAL statement_timeout = 5", "SET statement_timeout = 6", "COMMIT", "SHOW statement_timeout"},
		{"BEGIN", "SET statement_timeout = '7s'", "SET LOCAL statement_timeout = '1min'", "SHOW statement_timeout", "COMMIT", "SHOW statement_timeout"},
		{"BEGIN", "SET application_name = 'a'", "SAVEPOINT s1", "SET application_name = 'b'", "SAVEPOINT s2", "SET TimeZone = 'UTC+9'",
			"SELECT 1/0", "SHOW application_name", "ROLLBACK TO SAVEPOINT s2", "SHOW TimeZone", "SHOW application_name",
			"ROLLBACK TO s1", "SHOW application_name", "RELEASE s1", "RELEASE s1", "ROLLBACK", "SHOW application_name"},
		{"BEGIN", "SAVEPOINT a", "SAVEPOINT a", "SET TimeZone = 'UTC+9'", "ROLLBACK TO a", "SHOW TimeZone", "RELEASE a", "ROLLBACK TO a", "COMMIT"},
		{"BEGIN", "DECLARE c1 CURSOR FOR SELECT id FROM ev ORDER BY id", "SAVEPOINT p", "DECLARE c2 CURSOR FOR SELECT id FROM ev ORDER BY id",
			"ROLLBACK TO p", "FETCH 1 FROM c1", "FETCH 1 FROM c2", "ROLLBACK TO p", "FETCH 1 FROM c1", "COMMIT"},
		{"SAVEPOINT x", "RELEASE x", "ROLLBACK TO x", "BEGIN", "RELEASE nosuch", "ROLLBACK TO nosuch", "ROLLBACK"},
		{"SET TimeZone = 'UTC+9'", "SET application_name = 'pooled'", "DISCARD ALL", "SHOW TimeZone", "SHOW application_name", "SELECT at FROM ev ORDER BY id"},
		{"BEGIN", "DISCARD ALL", "ROLLBACK", "DISCARD PLANS", "DISCARD SEQUENCES", "DISCARD TEMP", "DEALLOCATE ALL", "CLOSE ALL"},
		{"SET statement_timeout = 6", "SHOW statement_timeout", "SET statement_timeout = 60000", "SHOW statement_timeout",
			"SET statement_timeout = '1.5s'", "SHOW statement_timeout", "SET statement_timeout = '1d'", "SHOW statement_timeout",
			"SET statement_timeout = '1500us'", "SHOW statement_timeout", "SET statement_timeout = '10 s'", "SELECT current_setting('statement_timeout')",
			"SET statement_timeout = '-1'", "SET statement_timeout = '5 parsecs'", "SET statement_timeout = 'x'", "SET statement_timeout = 0", "SHOW statement_timeout"},
		{"SET search_path = pg_catalog", "SET extra_float_digits = 0", "RESET ALL", "SHOW search_path", "SHOW extra_float_digits", "SHOW application_name"},
	}
	run := func(url string, script []string) string {
		args := []string{"-X", "-v", "VERBOSITY=verbose", "-d", url}
		for _, s := range script {
			args = append(args, "-c", s)
		}
		out, _ := exec.Command(psqlPath(t), args...).CombinedOutput() // errors are part of the output
		return psqlNoLocation(string(out))
	}
	for _, s := range scripts {
		if got, want := run(r.sqlURL, s), run(r.pgURL, s); got != want {
			t.Errorf("%q:\n%s\nPostgreSQL:\n%s", s, got, want)
		}
	}
}

// psqlNoLocation drops the LOCATION lines psql prints under
// VERBOSITY=verbose (PostgreSQL's source file and line).
func psqlNoLocation(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "LOCATION:  ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
