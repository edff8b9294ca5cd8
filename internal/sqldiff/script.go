package sqldiff

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// StandardSetup creates and fills the standard regression tables (tenk1,
// onek, int4_tbl, …).
//
//go:embed testdata/setup.sql
var StandardSetup string

// Result is one compared statement.
type Result struct {
	Stmt    Statement
	Outcome Outcome
	// Binary is the comparison in binary format, for the sample of
	// statements identical in text that were also run in binary.
	Binary *Outcome
}

// ScriptReport is what RunScript found for one script.
type ScriptReport struct {
	Name        string
	Results     []Result
	SetupErrors int      // setup statements PostgreSQL refused (many scripts test errors on purpose)
	Tables      int      // tables the sidecar followed
	NotFollowed []string // tables the daemon declined
	SetRefused  []string // SET statements the sidecar refused
	Took        time.Duration
}

// Count is the number of results of class c.
func (r *ScriptReport) Count(c Class) int {
	n := 0
	for _, x := range r.Results {
		if x.Outcome.Class == c {
			n++
		}
	}
	return n
}

// Counted is the number of statements PostgreSQL answers (the
// denominator of the percentages).
func (r *ScriptReport) Counted() int {
	n := 0
	for _, x := range r.Results {
		if x.Outcome.Class.Counted() {
			n++
		}
	}
	return n
}

// ScriptOptions configure RunScript.
type ScriptOptions struct {
	Name   string
	Script string
	PGURL  string // an empty database of its own
	Dir    string // scratch for the sidecar's data directory
	// Timeout is the statement timeout on both servers.
	Timeout time.Duration
	// BinaryEvery runs every n-th statement that is identical in text
	// again in binary format (0: never).
	BinaryEvery int
	Logger      *slog.Logger
}

// RunScript loads the standard tables into o.PGURL, runs the script's
// setup statements on PostgreSQL (errors are expected and counted), has a
// sidecar follow every table that exists afterwards, and compares the two
// servers' answers to each of the script's queries, with the script's SET
// statements replayed on both sessions in order. The queries all see the
// data as the whole setup left it, on both servers alike.
func RunScript(ctx context.Context, o ScriptOptions) (*ScriptReport, error) {
	start := time.Now()
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	stmts, err := Split(o.Script)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Name, err)
	}
	rep := &ScriptReport{Name: o.Name}
	if err := runSetup(ctx, o.PGURL, StandardSetup, nil); err != nil {
		return nil, fmt.Errorf("standard tables: %w", err)
	}
	if err := runSetup(ctx, o.PGURL, "", func(errs int) { rep.SetupErrors = errs }, stmts...); err != nil {
		return nil, fmt.Errorf("%s setup: %w", o.Name, err)
	}
	tables, err := userTables(ctx, o.PGURL)
	if err != nil {
		return nil, err
	}
	if err := identifyRows(ctx, o.PGURL); err != nil {
		return nil, err
	}
	rep.Tables = len(tables)
	sc, dropped, err := followSome(ctx, FollowOptions{PGURL: o.PGURL, Tables: tables, Dir: o.Dir, StatementTimeout: o.Timeout, Logger: o.Logger})
	if err != nil {
		return nil, fmt.Errorf("%s: follow: %w", o.Name, err)
	}
	defer sc.Stop()
	rep.NotFollowed = append(dropped, sc.NotFollowed...)
	pgs, scs := sc.Sessions(o.PGURL, o.Timeout)
	defer pgs.Close()
	defer scs.Close()
	identical := 0
	diverged := map[string]string{} // parameter → the SET the sidecar refused and PostgreSQL took
	// A query may write (a function that inserts): the sidecar then
	// waits for the change before the next statement, as a replica
	// read after the commit would.
	xmax := pgs.nextXid(ctx)
	for _, st := range stmts {
		switch st.Kind {
		case Set:
			if err := pgs.Set(ctx, st.SQL); err != nil {
				continue // PostgreSQL refused it: the script tests the error
			}
			name := setParam(st.SQL)
			if err := scs.Set(ctx, st.SQL); err != nil {
				code, msg := sqlState(err)
				rep.SetRefused = append(rep.SetRefused, fmt.Sprintf("%s (line %d): %s %s", st.SQL, st.Line, code, msg))
				diverged[name] = fmt.Sprintf("after the refused %s (line %d): %s %s", firstLine(st.SQL, 60), st.Line, code, msg)
				continue
			}
			delete(diverged, name)
		case Query:
			want := pgs.Run(ctx, st.SQL, 0, o.Timeout)
			if x := pgs.nextXid(ctx); x != xmax {
				cctx, cancel := context.WithTimeout(ctx, catchUpTimeout)
				err := sc.CatchUp(cctx, o.PGURL)
				cancel()
				if err != nil {
					return nil, fmt.Errorf("%s line %d: catch up after a write: %w", o.Name, st.Line, err)
				}
				xmax = pgs.nextXid(ctx)
			}
			got := scs.Run(ctx, st.SQL, 0, o.Timeout)
			res := Result{Stmt: st, Outcome: classifyAnswers(st, want, got)}
			if res.Outcome.Class == PGError && statesDiffer(&res.Outcome, want, got) && !refusalState(res.Outcome.Code) {
				res.Outcome.Class = ErrorCode
			}
			if res.Outcome.Class.Wrong() && len(diverged) > 0 {
				// The sidecar's session refused a SET PostgreSQL's took
				// (the client saw the error): the two sessions no longer
				// hold the same settings, so the answers are not compared.
				res.Outcome = Outcome{Class: Refused, Code: "0A000", Message: divergedBy(diverged)}
			}
			if res.Outcome.Class == Identical {
				identical++
				if o.BinaryEvery > 0 && identical%o.BinaryEvery == 0 {
					b := classifyAnswers(st, pgs.Run(ctx, st.SQL, 1, o.Timeout), scs.Run(ctx, st.SQL, 1, o.Timeout))
					res.Binary = &b
				}
			}
			rep.Results = append(rep.Results, res)
		}
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// catchUpTimeout bounds the wait for the sidecar to apply a write a
// query made: a daemon that never gets there fails the script with its
// last status instead of hanging the whole corpus run.
const catchUpTimeout = 3 * time.Minute

// runSetup runs script (split) and stmts' Setup statements on one
// connection, each on its own; errors are counted, not fatal, unless the
// connection itself is lost.
func runSetup(ctx context.Context, url, script string, errs func(int), stmts ...Statement) error {
	if script != "" {
		s, err := Split(script)
		if err != nil {
			return err
		}
		stmts = s
	}
	conn, err := pgconn.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "SET statement_timeout = 60000").ReadAll(); err != nil {
		return err
	}
	n := 0
	for _, st := range stmts {
		if st.Kind != Setup && st.Kind != Set {
			continue
		}
		if _, err := conn.Exec(ctx, st.SQL).ReadAll(); err != nil {
			if conn.IsClosed() {
				return fmt.Errorf("line %d: %w", st.Line, err)
			}
			if script != "" {
				return fmt.Errorf("line %d: %.80s: %w", st.Line, st.SQL, err)
			}
			n++
		}
	}
	if errs != nil {
		errs(n)
	}
	return nil
}

// userTables lists the ordinary and partitioned tables outside the system
// schemas, schema-qualified; partitions are left out (a publication takes
// the partitioned parent, not its partitions).
func userTables(ctx context.Context, url string) ([]string, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
		AND c.relname <> $1 ORDER BY 1, 2`, markerTable)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var out []string
	for rows.Next() {
		var ns, rel string
		if err := rows.Scan(&ns, &rel); err != nil {
			return nil, err
		}
		out = append(out, pgx.Identifier{ns, rel}.Sanitize())
	}
	return out, rows.Err()
}

// Session is a connection that comes back after a timeout closed it,
// with the SET statements run so far replayed.
type Session struct {
	URL  string
	Init []string // run on every new connection, before the SETs
	conn *pgconn.PgConn
	sets []string
}

// connect (re)opens the connection when there is none.
func (s *Session) connect(ctx context.Context) error {
	if s.conn != nil && !s.conn.IsClosed() {
		return nil
	}
	c, err := pgconn.Connect(ctx, s.URL)
	if err != nil {
		return fmt.Errorf("connect %s: %w", s.URL, err)
	}
	s.conn = c
	for _, q := range append(slicesClone(s.Init), s.sets...) {
		if _, err := c.Exec(ctx, q).ReadAll(); err != nil && c.IsClosed() {
			return err
		}
	}
	return nil
}

// Set runs a SET statement and keeps it for a reconnect when it worked.
func (s *Session) Set(ctx context.Context, sql string) error {
	if err := s.connect(ctx); err != nil {
		return err
	}
	if _, err := s.conn.Exec(ctx, sql).ReadAll(); err != nil {
		return err
	}
	s.sets = append(s.sets, sql)
	return nil
}

// Run executes sql in the given result format.
func (s *Session) Run(ctx context.Context, sql string, format int16, timeout time.Duration) answer {
	if err := s.connect(ctx); err != nil {
		return answer{err: err}
	}
	// The servers' own statement timeouts act first; the context is the
	// backstop for a server that does not stop.
	return run(ctx, s.conn, sql, format, timeout+5*time.Second)
}

// nextXid is the next transaction ID PostgreSQL will assign ("" when
// it cannot be read): it moves when a statement wrote.
func (s *Session) nextXid(ctx context.Context) string {
	if err := s.connect(ctx); err != nil {
		return ""
	}
	res := s.conn.ExecParams(ctx, "SELECT pg_snapshot_xmax(pg_current_snapshot())::text", nil, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 {
		return ""
	}
	return string(res.Rows[0][0])
}

// Time runs sql in text format and returns its wall time (the answer is
// not kept; a benchmark's side that is not compared).
func (s *Session) Time(ctx context.Context, sql string, timeout time.Duration) time.Duration {
	start := time.Now()
	s.Run(ctx, sql, 0, timeout)
	return time.Since(start)
}

// Close ends the connection.
func (s *Session) Close() {
	if s.conn != nil {
		s.conn.Close(context.Background())
	}
}

func slicesClone(xs []string) []string { return append([]string(nil), xs...) }

// Percent formats n of d as a percentage with one decimal.
func Percent(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(d))
}

// firstLine is the statement on one line, cut to n characters.
func firstLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// identifyRows gives every keyless user table REPLICA IDENTITY FULL (the
// regression tables have no primary keys; the sidecar follows such a
// table as a multiset of whole rows). It changes how PostgreSQL logs
// updates, not what any query answers.
func identifyRows(ctx context.Context, url string) error {
	return execAll(ctx, url, `DO $$
DECLARE r record;
BEGIN
	FOR r IN SELECT c.oid::regclass AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND c.relreplident = 'd' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
		AND n.nspname NOT LIKE 'pg\_%' AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary)
	LOOP
		EXECUTE format('ALTER TABLE %s REPLICA IDENTITY FULL', r.t);
	END LOOP;
END $$`)
}

// followSome follows o.Tables; when the daemon fails on a table it names
// (it cannot copy it), that table is left out and the daemon started
// again, up to 10 times. dropped says which tables and why: each is a
// defect of the daemon worth its own report, but the corpus measures the
// SQL port over the tables it does follow.
func followSome(ctx context.Context, o FollowOptions) (*Sidecar, []string, error) {
	var dropped []string
	for range 10 {
		sc, err := Follow(ctx, o)
		if err == nil {
			return sc, dropped, nil
		}
		msg := err.Error()
		bad := ""
		for _, t := range o.Tables {
			plain := strings.ReplaceAll(t, `"`, "")
			named := regexp.MustCompile(`(^|[\s\[])` + regexp.QuoteMeta(plain) + `([\s\]:]|$)`)
			if named.MatchString(msg) {
				bad = t
				break
			}
		}
		if bad == "" {
			return nil, dropped, err
		}
		dropped = append(dropped, fmt.Sprintf("%s (the daemon failed: %s)", bad, firstLine(msg, 200)))
		o.Tables = slices.DeleteFunc(slices.Clone(o.Tables), func(t string) bool { return t == bad })
	}
	return nil, dropped, fmt.Errorf("the daemon failed on 10 tables in a row: %s", strings.Join(dropped, "; "))
}

// Load runs a setup script on url, every statement of it, stopping at the
// first error.
func Load(ctx context.Context, url, script string) error {
	return runSetup(ctx, url, script, nil)
}

// setParam is the parameter a SET or RESET statement names ("" when it
// does not parse as one; SET TIME ZONE is "timezone").
func setParam(sql string) string {
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return ""
	}
	if v := tree.Stmts[0].Stmt.GetVariableSetStmt(); v != nil {
		return strings.ToLower(v.Name)
	}
	return ""
}

// divergedBy names one refused SET still in force (the first by name).
func divergedBy(d map[string]string) string {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return d[keys[0]]
}
