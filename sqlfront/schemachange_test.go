package sqlfront_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// liveDaemon follows tables of a new database (created by setup) with a
// running daemon serving SQL, until the test ends; it returns the
// database's URL and the SQL port's.
func liveDaemon(t *testing.T, tables, setup []string) (pgURL, sqlURL string) {
	t.Helper()
	pgURL = pg.NewDB(t)
	execSQL(t, pgURL, append([]string{markerSetup}, setup...)...)
	tables = append([]string{"public.marker"}, tables...)
	dir := t.TempDir()
	// The daemon's log, shown when the test fails.
	logFile, err := os.Create(filepath.Join(dir, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		logFile.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("daemon log (last 8 KiB):\n%s", b[max(0, len(b)-8192):])
		}
	})
	return pgURL, daemonSQL(t, pgURL, tables, dir, logFile)
}

// shapeRows is the table TestSchemaChangeLive reads: row id has a = id,
// b = 10·id, c = 100·id, and d (added later) = 7. An answer is right when
// every column it names holds that column's value for the row's id, and
// aggregates equal the table's (it has shapeN rows, never changed).
const shapeN = 3000

// checkShape checks one answer of the readers (see shapeRows): names are
// its columns, rows its texts. It returns the shape seen ("" for
// aggregates), or an error describing what is wrong.
func checkShape(names []string, rows [][]*string) (string, error) {
	want := func(col string, id int64) (string, bool) {
		switch col {
		case "a":
			return strconv.FormatInt(id, 10), true
		case "b":
			return strconv.FormatInt(10*id, 10), true
		case "c":
			return strconv.FormatInt(100*id, 10), true
		case "d":
			return "7", true
		}
		return "", false
	}
	if len(names) > 0 && names[0] == "count" { // count(*), count(c), sum(c)
		if len(rows) != 1 || len(rows[0]) != 3 || rows[0][0] == nil || rows[0][1] == nil || rows[0][2] == nil {
			return "", fmt.Errorf("aggregate: %d rows", len(rows))
		}
		n := strconv.Itoa(shapeN)
		sum := strconv.FormatInt(100*int64(shapeN)*int64(shapeN+1)/2, 10)
		if *rows[0][0] != n || *rows[0][1] != n || *rows[0][2] != sum {
			return "", fmt.Errorf("aggregate: count(*) %s, count(c) %s, sum(c) %s; want %s, %s, %s", *rows[0][0], *rows[0][1], *rows[0][2], n, n, sum)
		}
		return "", nil
	}
	if len(names) == 0 || names[0] != "id" {
		return "", fmt.Errorf("columns %v: the first is not id", names)
	}
	for _, r := range rows {
		if len(r) != len(names) || r[0] == nil {
			return "", fmt.Errorf("a row of %d values for columns %v", len(r), names)
		}
		id, err := strconv.ParseInt(*r[0], 10, 64)
		if err != nil {
			return "", err
		}
		for i, col := range names[1:] {
			w, ok := want(col, id)
			if !ok {
				return "", fmt.Errorf("unknown column %q", col)
			}
			if g := r[i+1]; g == nil || *g != w {
				got := "NULL"
				if g != nil {
					got = *g
				}
				return "", fmt.Errorf("columns %v: row %d has %s = %s, want %s (torn or stale columns)", names, id, col, got, w)
			}
		}
	}
	return strings.Join(names, ","), nil
}

// TestSchemaChangeLive: ALTER TABLE … DROP COLUMN and ADD COLUMN on a
// followed table while readers query the SQL port at a high rate. Every
// answer must be one PostgreSQL gave at some version (the columns and
// the rows of the same version: no dropped column's values, no column
// holding another's), and once the resync lands the new shape is served
// without any further commit. Before the fix the front end kept the
// relation it had cached for the head's LSN, which a resync does not
// move: the old columns were served until the next commit, and reads of
// the in-memory HEAD, which had the new rows, decoded them with the old
// columns (b held c's values).
func TestSchemaChangeLive(t *testing.T) {
	pgURL, sqlURL := liveDaemon(t, []string{"public.shape"}, []string{
		"CREATE TABLE shape (id int PRIMARY KEY, a int, b int, c int)",
		fmt.Sprintf("INSERT INTO shape SELECT g, g, 10 * g, 100 * g FROM generate_series(1, %d) g", shapeN),
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Statements of every read path: point gets and key ranges (direct
	// path, in-memory HEAD or tree), a row scan with a filter (query
	// engine), a sorted scan (evaluator) and aggregates (query engine).
	stmts := []func(k int) string{
		func(k int) string { return fmt.Sprintf("SELECT * FROM shape WHERE id = %d", k) },
		func(k int) string { return fmt.Sprintf("SELECT * FROM shape WHERE id >= %d AND id < %d", k, k+40) },
		func(k int) string { return fmt.Sprintf("SELECT * FROM shape WHERE a > %d ORDER BY id LIMIT 30", k) },
		func(k int) string { return fmt.Sprintf("SELECT * FROM shape WHERE a + 0 > %d ORDER BY id LIMIT 30", k) },
		func(int) string { return "SELECT count(*), count(c), sum(c) FROM shape" },
		func(k int) string { return fmt.Sprintf("SELECT * FROM shape WHERE id IN (%d, %d)", k, k+1) },
	}
	var (
		mu      sync.Mutex
		seen    = map[string]int{} // shape → answers
		wrong   []string           // the first 100 wrong answers
		nWrong  int
		refused = map[string]int{} // SQLSTATE → answers
		answers atomic.Int64
	)
	var wg sync.WaitGroup
	startReaders := func() {
		for w := 0; w < 3; w++ {
			conn, err := pgconn.Connect(ctx, sqlURL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close(context.Background()) })
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := w; ctx.Err() == nil; i++ {
					q := stmts[i%len(stmts)](1 + (i*7919)%(shapeN-50))
					// Simple and extended protocol, alternately.
					var res *pgconn.Result
					if i%2 == 0 {
						rs, err := conn.Exec(ctx, q).ReadAll()
						if err == nil {
							res = rs[0]
						} else {
							res = &pgconn.Result{Err: err}
						}
					} else {
						res = conn.ExecParams(ctx, q, nil, nil, nil, nil).Read()
					}
					if ctx.Err() != nil {
						return
					}
					if res.Err != nil {
						// A statement whose table's schema changed while it
						// was read may be refused with 40001, and one whose
						// result columns were described before the change
						// with 0A000 (as PostgreSQL refuses a prepared
						// statement after ALTER); one reading the table
						// while its resync copy is held (the stream has not
						// reached the copy's LSN) with 55000 naming the
						// window (mirror/landing.go); nothing else.
						c := pgCode(res.Err)
						if c == "40001" || c == "0A000" && strings.Contains(res.Err.Error(), "cached plan must not change result type") || c == "55000" && strings.Contains(res.Err.Error(), "resync") {
							mu.Lock()
							refused[c]++
							mu.Unlock()
							continue
						}
						mu.Lock()
						if nWrong++; len(wrong) < 100 {
							wrong = append(wrong, fmt.Sprintf("%s: %v", q, res.Err))
						}
						mu.Unlock()
						continue
					}
					var names []string
					for _, f := range res.FieldDescriptions {
						names = append(names, f.Name)
					}
					rows := make([][]*string, len(res.Rows))
					for j, r := range res.Rows {
						for _, v := range r {
							if v == nil {
								rows[j] = append(rows[j], nil)
							} else {
								s := string(v)
								rows[j] = append(rows[j], &s)
							}
						}
					}
					shape, err := checkShape(names, rows)
					answers.Add(1)
					mu.Lock()
					if err != nil {
						if nWrong++; len(wrong) < 100 {
							wrong = append(wrong, fmt.Sprintf("%s: %v", q, err))
						}
					} else {
						seen[shape]++
					}
					mu.Unlock()
				}
			}(w)
		}
	}
	// served waits until the SQL port serves shape (SELECT *'s columns)
	// on every read path.
	served := func(shape string) bool {
		t.Helper()
		conn, err := pgconn.Connect(ctx, sqlURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		deadline := time.Now().Add(2 * time.Minute)
		for {
			ok := true
			for _, q := range []string{"SELECT * FROM shape WHERE id = 5", "SELECT * FROM shape WHERE a > 10 ORDER BY id LIMIT 3", "SELECT * FROM shape WHERE id < 4"} {
				rs, err := conn.Exec(ctx, q).ReadAll()
				if err != nil {
					ok = false
					break
				}
				var names []string
				for _, f := range rs[0].FieldDescriptions {
					names = append(names, f.Name)
				}
				ok = ok && strings.Join(names, ",") == shape
			}
			if ok {
				return true
			}
			if time.Now().After(deadline) {
				t.Errorf("the SQL port did not serve columns %s within 2 minutes of the schema change", shape)
				return false
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	ok := served("id,a,b,c") // the initial copy is done
	startReaders()
	// A schema change reaches the mirror with the next row change of the
	// table (pgoutput's Relation message); that transaction is the last
	// commit until the new shape is served, so the resync lands at the
	// head's LSN.
	ok = ok && execSQLOK(t, pgURL, "ALTER TABLE shape DROP COLUMN b", "UPDATE shape SET a = a WHERE id = 1") && served("id,a,c")
	ok = ok && execSQLOK(t, pgURL, "ALTER TABLE shape ADD COLUMN d int DEFAULT 7", "UPDATE shape SET a = a WHERE id = 2") && served("id,a,c,d")
	mu.Lock()
	t.Logf("before the last reads: shapes %v", seen)
	mu.Unlock()
	// Keep reading the final shape a little (readers see only it now).
	for n, deadline := answers.Load(), time.Now().Add(time.Minute); answers.Load() < n+100 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	t.Logf("%d answers checked, shapes %v (\"\": aggregates), refused %v", answers.Load(), seen, refused)
	if nWrong > 0 {
		t.Errorf("%d wrong answers, first ones:\n%s", nWrong, strings.Join(wrong[:min(len(wrong), 10)], "\n"))
	}
}

// execSQLOK is execSQL returning true, for chains of steps.
func execSQLOK(t *testing.T, url string, sqls ...string) bool {
	t.Helper()
	execSQL(t, url, sqls...)
	return true
}
