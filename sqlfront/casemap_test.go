package sqlfront_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/libccoll"
	"github.com/sidecar-dev/sidecar/internal/testenv"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// caseWords are texts whose case mapping is not ASCII's: accents, ß,
// dotted and dotless i, title-case digraphs, Greek sigma, ligatures,
// Cyrillic, astral letters, and word boundaries after them.
var caseWords = []string{"élan vital", "ÉCLAIR", "Straße", "İstanbul ıi", "ǅungla ǆ", "ΣΊΣΥΦΟΣ ὀδυσσεύς", "ﬁne ﬀ", "омега ОМЕГА",
	"𐐨𐐐", "x1é y_z", "naïve-Café", "plain ascii", "", "ǰ ΐ ẞ"}

// TestCaseMappingOverTheWire (issue 23): lower, upper, initcap and ILIKE
// of non-ASCII text in a database whose default collation is C (the
// ASCII letters map) and in one whose default is en_US.UTF-8 (glibc's
// mapping, answered with Go's tables where TestCaseMappingMatchesGlibc
// proved them equal), answered as PostgreSQL; a statement reading a
// column of another collation beside them is refused for non-ASCII
// text, never answered under the wrong locale. Before, every such
// statement was refused with 0A000.
func TestCaseMappingOverTheWire(t *testing.T) {
	for _, locale := range []string{"C", "en_US.UTF-8"} {
		t.Run(strings.NewReplacer(".", "_", "-", "_").Replace(locale), func(t *testing.T) {
			if locale != "C" {
				if _, err := libccoll.Open(locale); err != nil {
					testenv.Missing(t, err.Error(), "install Debian's locales package and generate "+locale+" (.ci/run does)")
				}
			}
			caseMappingIn(t, locale)
		})
	}
}

func caseMappingIn(t *testing.T, locale string) {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := "casemap_" + strings.ToLower(strings.NewReplacer(".", "_", "-", "_").Replace(locale))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 LOCALE '"+locale+"' ENCODING 'UTF8'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pg.DropDB(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	var vals []string
	for k, w := range caseWords {
		vals = append(vals, fmt.Sprintf("(%d, '%s')", k, strings.ReplaceAll(w, "'", "''")))
	}
	url := pg.URL(name)
	execSQL(t, url, markerSetup,
		"CREATE TABLE words (id int PRIMARY KEY, s text)",
		"INSERT INTO words VALUES "+strings.Join(vals, ", "),
		`CREATE TABLE cwords (id int PRIMARY KEY, c text COLLATE "POSIX")`,
		"INSERT INTO cwords VALUES "+strings.Join(vals, ", "))
	sc, sqlURL := serveFollowed(t, url, []string{"public.marker", "public.words", "public.cwords"},
		"SELECT id FROM words WHERE id = 1", "SELECT id FROM cwords WHERE id = 1")
	defer sc.Close(ctx)
	compareWithPostgres(t, url, sqlURL, []string{
		"SELECT id, lower(s), upper(s), initcap(s) FROM words ORDER BY id",
		"SELECT id, lower(s || 'É'), upper('ß' || s) FROM words ORDER BY id",
		"SELECT id FROM words WHERE s ILIKE '%É%' ORDER BY id",
		"SELECT id FROM words WHERE s ILIKE 'straSSe' OR s ILIKE 'STRASSE' OR s ILIKE 'straße' ORDER BY id",
		"SELECT id, s NOT ILIKE '_lan%' FROM words ORDER BY id",
		"SELECT lower('ÀÉÎ'), upper('àéî'), initcap('élan ǆemal')",
		"SELECT id, lower(c), initcap(c) FROM cwords ORDER BY id",
	}, nil, "case mapping under "+locale)
	// A column of another collation beside the default: sql/exec takes
	// one mapping per statement, so it is answered as PostgreSQL or
	// refused.
	for _, q := range []string{
		"SELECT w.id, lower(s), lower(c) FROM words w JOIN cwords USING (id) ORDER BY 1",
		"SELECT id FROM cwords WHERE c ILIKE '%é%' ORDER BY id",
	} {
		res := sc.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		var pe *pgconn.PgError
		if res.Err != nil && (!errors.As(res.Err, &pe) || pe.Code != "0A000") {
			t.Errorf("%s: want PostgreSQL's answer or 0A000, got %v", q, res.Err)
		}
		if res.Err == nil {
			compareWithPostgres(t, url, sqlURL, []string{q}, nil, "two collations under "+locale)
		}
	}
}

// serveFollowed starts a daemon following tables of the database at url
// with its SQL port on a free address, and waits (up to 2 minutes) until
// the port answers every probe; it returns a connection to the port and
// the port's URL. The daemon's log is shown when the test fails.
func serveFollowed(t *testing.T, url string, tables []string, probes ...string) (*pgconn.PgConn, string) {
	t.Helper()
	ctx := context.Background()
	var daemonLog daemontest.Buffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon log:\n%s", daemonLog.String())
		}
	})
	sqlURL := daemonSQL(t, url, tables, t.TempDir(), &daemonLog)
	var sc *pgconn.PgConn
	var last error
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if sc == nil {
			sc, last = pgconn.Connect(ctx, sqlURL)
		}
		if sc != nil {
			last = nil
			for _, q := range probes {
				if last = sc.ExecParams(ctx, q, nil, nil, nil, nil).Read().Err; last != nil {
					break
				}
			}
			if last == nil {
				return sc, sqlURL
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the SQL port did not serve the tables in 2 minutes: %v", last)
		}
	}
}
