package pgparams

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
)

// sampleValues are the values SET is tried with for p: its kind's
// spellings, units, bounds and garbage.
func sampleValues(p *Param) []string {
	switch p.VarType {
	case "bool":
		return []string{"on", "off", "ON", "true", "t", "tr", "fa", "yes", "y", "n", "no", "1", "0", "maybe", "o", "of", "2", "", " on"}
	case "integer":
		v := []string{"0", "1", "-1", "7", "65536", "010", "0x10", "08", "1.5", "2.5", "1e3", "1e400", "abc", "10 MB", "10MB", "10mb", "1GB",
			"1.5GB", "100kB", "3B", "1TB", "1s", "1min", "1h", "1d", "500ms", "100us", "1.5s", " 5 ", "99999999999", "-5", "inf", "nan", "", "5 kB x", "5kBB"}
		if lo, err := strconv.ParseInt(p.Min, 10, 64); err == nil {
			v = append(v, p.Min, strconv.FormatInt(lo-1, 10))
		}
		if hi, err := strconv.ParseInt(p.Max, 10, 64); err == nil {
			v = append(v, p.Max, strconv.FormatInt(hi+1, 10))
		}
		return v
	case "real":
		return []string{"0", "0.5", "1e-3", "1.5", "-1", "1e10", "abc", "inf", "nan", "1ms", "1s", "0.1ms", "1.5min", "20", "2.5 ms", "1e-400", "123456789", p.Min, p.Max}
	case "enum":
		v := []string{"on", "off", "true", "1", "bogus", "", "0"}
		for _, e := range p.EnumVals {
			v = append(v, e, "X"+e)
		}
		return v
	}
	return nil
}

// pgOutcome is what PostgreSQL answered to a SET: its error, or SHOW's
// and pg_settings' value after it.
func pgOutcome(ctx context.Context, conn *pgx.Conn, name, value string) (string, error) {
	// One simple query: a transaction left idle under a small
	// idle_in_transaction_session_timeout would end the connection.
	n := quote(name)
	q := "BEGIN; SET " + pgx.Identifier{name}.Sanitize() + " = " + quote(value) + "; SELECT current_setting(" + n +
		") || ' | ' || (SELECT setting FROM pg_settings WHERE name = " + n + "); ROLLBACK"
	res, err := conn.PgConn().Exec(ctx, q).ReadAll()
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
				return "", err
			}
			return fmt.Sprintf("ERROR %s %s hint=%q", pe.Code, pe.Message, pe.Hint), nil
		}
		return "", err
	}
	return string(res[2].Rows[0][0]), nil
}

func quote(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += "'"
		}
		out += string(r)
	}
	return out + "'"
}

// ourOutcome is the same from the table's rules.
func ourOutcome(major int, p *Param, name, value, current string) string {
	if err := p.CheckSet(name, false); err != nil {
		return fmt.Sprintf("ERROR %s %s hint=%q", err.Code, err.Message, err.Hint)
	}
	v, err := p.Normalize(major, name, value, current)
	if err != nil {
		return fmt.Sprintf("ERROR %s %s hint=%q", err.Code, err.Message, err.Hint)
	}
	return v.Show + " | " + v.Setting
}

// TestSetMatchesPostgreSQL sets every non-string parameter of the
// server's major to a sample of values as a role that is not a
// superuser (sidecar's sessions are not) and compares PostgreSQL's
// answer (its error, or SHOW's and pg_settings' value after it) with
// the table's rules. Also the server's own values: Setting of SHOW's
// text is pg_settings.setting.
func TestSetMatchesPostgreSQL(t *testing.T) {
	ctx := context.Background()
	c, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	admin, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE ROLE plain LOGIN"); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User("plain")
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	major := c.ServerVersion() / 10000
	if major < FirstMajor || major > LastMajor {
		t.Skipf("PostgreSQL %d is outside the table", major)
	}
	rows, err := admin.Query(ctx, "SELECT name, current_setting(name), setting FROM pg_settings")
	if err != nil {
		t.Fatal(err)
	}
	current := map[string]string{}
	checked := 0
	for rows.Next() {
		var name, show, setting string
		if err := rows.Scan(&name, &show, &setting); err != nil {
			t.Fatal(err)
		}
		current[name] = show
		p, ok := Lookup(name, major)
		if !ok {
			t.Errorf("%s: not in the table for %d", name, major)
			continue
		}
		if got := p.Setting(show); got != setting {
			t.Errorf("Setting(%s = %q) = %q, pg_settings %q", name, show, got, setting)
		}
		checked++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	n, refused := 0, 0
	for _, p := range All(major) {
		for _, v := range sampleValues(p) {
			if strings.HasSuffix(p.Name, "_timeout") {
				if nv, err := p.Normalize(major, p.Name, v, current[p.Name]); err == nil {
					if ms, _ := strconv.Atoi(nv.Setting); ms > 0 && ms < 60000 {
						continue // would end the SET's own statement or transaction
					}
				}
			}
			want, err := pgOutcome(ctx, conn, p.Name, v)
			if err != nil {
				t.Fatalf("SET %s = %q: %v", p.Name, v, err)
			}
			got := ourOutcome(major, p, p.Name, v, current[p.Name])
			if strings.HasPrefix(got, "ERROR "+CodeNotSupported+" ") {
				refused++ // the promise: PostgreSQL's answer or a refusal
				continue
			}
			if got != want {
				t.Errorf("SET %s = %q (%s, %s): %s; PostgreSQL %s", p.Name, v, p.VarType, p.Context, got, want)
			}
			n++
		}
	}
	t.Logf("PostgreSQL %d: %d server values, %d SETs compared, %d refused (0A000)", major, checked, n, refused)
	if refused > n/5 {
		t.Errorf("%d of %d SETs refused", refused, n)
	}
}
