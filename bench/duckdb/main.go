// Command duckdb is the DuckDB anchor of the query benchmark (issue 14)
// and of the TPC-H run (bench/tpch.go, `sidecar-bench tpch --duckdb`):
// it loads PostgreSQL tables into an in-memory DuckDB database and times
// queries on it, driven line by line over stdin so that a benchmark can
// alternate it with the sidecar and PostgreSQL in the same run.
//
// It lives in its own module (bench/duckdb/go.mod) so that the product's
// `go build ./...`, `go vet ./...` and CI never compile DuckDB (cgo).
//
//	duckdb-anchor -dsn postgres://… -table b
//
// Protocol (one line each way):
//
//	load COLUMNS            → "loaded ROWS MS BYTES" (BYTES: DuckDB's memory use)
//	exec SQL                → "ok MS" (DDL: the TPC-H schema)
//	copy TABLE              → "loaded ROWS MS BYTES": TABLE (created by exec)
//	                          copied from PostgreSQL's table of that name
//	                          through a CSV file in -tmp (deleted after)
//	query NAME SQL          → "result NAME MS CELLS" (CELLS: the first row's
//	                          cells joined by ':', then ' rows=N')
//	quit
//
// Errors are printed as "error MESSAGE" and the program goes on.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"database/sql/driver"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func main() {
	dsn := flag.String("dsn", "", "PostgreSQL connection string of the table to load")
	table := flag.String("table", "b", "table to load (id bigint, k text, v text, score int, grp int)")
	threads := flag.Int("threads", 0, "DuckDB threads (0: DuckDB's default, every core)")
	memory := flag.String("memory", "", "DuckDB memory_limit (e.g. 3GB; empty: DuckDB's default, 80% of RAM)")
	tmp := flag.String("tmp", "", "directory for copy's CSV files (default: the system's temporary directory)")
	flag.Parse()
	if err := run(*dsn, *table, *threads, *memory, *tmp); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb-anchor:", err)
		os.Exit(1)
	}
}

func run(dsn, table string, threads int, memory, tmp string) error {
	ctx := context.Background()
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return fmt.Errorf("open duckdb: %w", err)
	}
	defer connector.Close()
	db := sql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(1) // one in-memory database, one connection
	if threads > 0 {
		if _, err := db.Exec(fmt.Sprintf("SET threads = %d", threads)); err != nil {
			return err
		}
	}
	if memory != "" {
		if _, err := db.Exec(fmt.Sprintf("SET memory_limit = '%s'", strings.ReplaceAll(memory, "'", ""))); err != nil {
			return err
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	reply := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	for in.Scan() {
		cmd, rest, _ := strings.Cut(in.Text(), " ")
		switch cmd {
		case "load":
			st := time.Now()
			n, err := load(ctx, db, dsn, table)
			if err != nil {
				reply("error %v", err)
				continue
			}
			reply("loaded %d %.1f %s", n, time.Since(st).Seconds()*1000, memUse(db))
		case "exec":
			st := time.Now()
			if _, err := db.Exec(rest); err != nil {
				reply("error %v", err)
				continue
			}
			reply("ok %.1f", time.Since(st).Seconds()*1000)
		case "copy":
			st := time.Now()
			n, err := copyTable(ctx, db, dsn, rest, tmp)
			if err != nil {
				reply("error %v", err)
				continue
			}
			reply("loaded %d %.1f %s", n, time.Since(st).Seconds()*1000, memUse(db))
		case "query":
			name, q, _ := strings.Cut(rest, " ")
			st := time.Now()
			cells, rows, err := query(db, q)
			if err != nil {
				reply("error %v", err)
				continue
			}
			reply("result %s %.3f %s rows=%d", name, time.Since(st).Seconds()*1000, cells, rows)
		case "quit":
			return nil
		default:
			reply("error unknown command %q", cmd)
		}
	}
	return in.Err()
}

// load copies the PostgreSQL table into DuckDB through the appender.
func load(ctx context.Context, db *sql.DB, dsn, table string) (int, error) {
	if _, err := db.Exec("CREATE OR REPLACE TABLE " + table + " (id BIGINT PRIMARY KEY, k VARCHAR, v VARCHAR, score INTEGER, grp INTEGER)"); err != nil {
		return 0, err
	}
	pc, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer pc.Close(ctx)
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	n := 0
	err = conn.Raw(func(dc any) error {
		app, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", table)
		if err != nil {
			return err
		}
		rows, err := pc.Query(ctx, "SELECT id, k, v, score, grp FROM "+table+" ORDER BY id")
		if err != nil {
			app.Close()
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var k, v *string
			var score, grp *int32
			if err := rows.Scan(&id, &k, &v, &score, &grp); err != nil {
				app.Close()
				return err
			}
			if err := app.AppendRow(id, str(k), str(v), i32(score), i32(grp)); err != nil {
				app.Close()
				return err
			}
			n++
		}
		if err := rows.Err(); err != nil {
			app.Close()
			return err
		}
		return app.Close()
	})
	return n, err
}

func str(p *string) driver.Value {
	if p == nil {
		return nil
	}
	return *p
}

func i32(p *int32) driver.Value {
	if p == nil {
		return nil
	}
	return *p
}

// query runs q and returns its first row's cells joined by ':' (NULL as
// "NULL") and the number of rows.
func query(db *sql.DB, q string) (string, int, error) {
	rows, err := db.Query(q)
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", 0, err
	}
	var first []string
	n := 0
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", 0, err
		}
		if n == 0 {
			for _, v := range vals {
				if v == nil {
					first = append(first, "NULL")
				} else {
					first = append(first, fmt.Sprint(v))
				}
			}
		}
		n++
	}
	return strings.Join(first, ":"), n, rows.Err()
}

// memUse is DuckDB's memory use as it reports it ("?" when it does not).
func memUse(db *sql.DB) string {
	var mem string
	if err := db.QueryRow("SELECT memory_usage FROM pragma_database_size()").Scan(&mem); err != nil {
		return "?"
	}
	return strings.ReplaceAll(mem, " ", "")
}

// copyTable copies PostgreSQL's table into DuckDB's table of the same
// name (already created): PostgreSQL's COPY TO as CSV into a file in
// dir, DuckDB's COPY FROM it, the file removed. Every column goes
// through its text form, so each engine parses values its own way.
func copyTable(ctx context.Context, db *sql.DB, dsn, table, dir string) (int64, error) {
	if !validName(table) {
		return 0, fmt.Errorf("copy: bad table name %q", table)
	}
	f, err := os.CreateTemp(dir, "duckdb-anchor-"+table+"-*.csv")
	if err != nil {
		return 0, fmt.Errorf("copy %s: %w", table, err)
	}
	defer os.Remove(f.Name())
	pc, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		f.Close()
		return 0, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	// pgconn writes each row as it arrives: buffered, not a write(2)
	// per row (8.6 million at scale factor 1).
	w := bufio.NewWriterSize(f, 1<<20)
	_, err = pc.CopyTo(ctx, w, "COPY "+table+" TO STDOUT WITH (FORMAT csv)")
	pc.Close(ctx)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("copy %s out of PostgreSQL: %w", table, err)
	}
	res, err := db.Exec(fmt.Sprintf("COPY %s FROM '%s' (FORMAT csv, HEADER false)", table, strings.ReplaceAll(f.Name(), "'", "''")))
	if err != nil {
		return 0, fmt.Errorf("copy %s into DuckDB: %w", table, err)
	}
	return res.RowsAffected()
}

// validName reports whether s is a plain lower-case identifier.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}
