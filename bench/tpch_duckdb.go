package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/bench/tpch"
)

// duckAnchor drives the DuckDB anchor (bench/duckdb, its own module:
// cgo) over its line protocol: the eight TPC-H tables copied from the
// same PostgreSQL, then each query timed in the same alternation as
// PostgreSQL and the sidecar.
type duckAnchor struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startDuckAnchor starts the anchor program at path on the PostgreSQL
// database url (memory: DuckDB's memory_limit, empty for its default;
// dir: where its CSV copies go).
func startDuckAnchor(path, url, memory, dir string) (*duckAnchor, error) {
	args := []string{"-dsn", url}
	if memory != "" {
		args = append(args, "-memory", memory)
	}
	if dir != "" {
		args = append(args, "-tmp", dir)
	}
	cmd := exec.Command(path, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start DuckDB anchor %s: %w", path, err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &duckAnchor{cmd: cmd, in: in, out: sc}, nil
}

// send writes one command line and returns the anchor's answer line; an
// "error …" answer is returned as an error.
func (d *duckAnchor) send(line string) (string, error) {
	if _, err := io.WriteString(d.in, line+"\n"); err != nil {
		return "", fmt.Errorf("DuckDB anchor: %w", err)
	}
	if !d.out.Scan() {
		return "", fmt.Errorf("DuckDB anchor: no answer to %.40q: %v", line, d.out.Err())
	}
	ans := d.out.Text()
	if msg, ok := strings.CutPrefix(ans, "error "); ok {
		return "", fmt.Errorf("DuckDB: %s", msg)
	}
	return ans, nil
}

// close ends the anchor (its in-memory database goes with it).
func (d *duckAnchor) close() {
	io.WriteString(d.in, "quit\n")
	d.in.Close()
	d.cmd.Wait()
}

// load creates the TPC-H schema in DuckDB and copies the tables; it
// returns DuckDB's memory use as it reports it.
func (d *duckAnchor) load() (string, error) {
	for _, stmt := range strings.Split(tpch.Schema, ";") {
		if stmt = oneLine(stmt); stmt == "" {
			continue
		}
		if _, err := d.send("exec " + stmt); err != nil {
			return "", err
		}
	}
	mem := "?"
	chars := charColumns(tpch.Schema)
	for _, t := range tpch.Tables {
		ans, err := d.send("copy " + t)
		if err != nil {
			return "", err
		}
		if cols := chars[t]; len(cols) > 0 {
			// DuckDB's char(n) is varchar: the blanks PostgreSQL's
			// text form pads with would take part in comparisons
			// ('EUROPE' would not equal r_name), so they go.
			set := make([]string, len(cols))
			for i, c := range cols {
				set[i] = c + " = rtrim(" + c + ")"
			}
			if _, err := d.send("exec UPDATE " + t + " SET " + strings.Join(set, ", ")); err != nil {
				return "", err
			}
		}
		if f := strings.Fields(ans); len(f) == 4 {
			mem = f[3]
		}
	}
	return mem, nil
}

// charColumns are the char(n) columns of each table of schema (CREATE
// TABLE statements, one column definition after each comma or paren).
func charColumns(schema string) map[string][]string {
	out := map[string][]string{}
	for _, stmt := range strings.Split(schema, ";") {
		m := createTable.FindStringSubmatch(stmt)
		if m == nil {
			continue
		}
		for _, c := range charColumn.FindAllStringSubmatch(stmt, -1) {
			out[m[1]] = append(out[m[1]], c[1])
		}
	}
	return out
}

var (
	createTable = regexp.MustCompile(`(?i)CREATE TABLE (\w+)`)
	charColumn  = regexp.MustCompile(`(?i)[(,]\s*(\w+) char\(`)
)

// query times q in DuckDB: the anchor's own measure (the statement and
// fetching every row) and the number of rows.
func (d *duckAnchor) query(name, q string) (time.Duration, int, error) {
	ans, err := d.send("query " + name + " " + oneLine(q))
	if err != nil {
		return 0, 0, err
	}
	// result NAME MS CELLS rows=N
	f := strings.Fields(ans)
	if len(f) < 4 || f[0] != "result" {
		return 0, 0, fmt.Errorf("DuckDB anchor: unexpected answer %.80q", ans)
	}
	ms, err := strconv.ParseFloat(f[2], 64)
	if err != nil {
		return 0, 0, fmt.Errorf("DuckDB anchor: %w", err)
	}
	rows, _ := strconv.Atoi(strings.TrimPrefix(f[len(f)-1], "rows="))
	return time.Duration(ms * float64(time.Millisecond)), rows, nil
}

// oneLine is s on one line (the protocol's unit), whitespace runs
// collapsed: TPC-H's texts have no literal they would change.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// runDuck times query n's text q in DuckDB into cell (an error is kept
// as the cell's DuckDB error; the run goes on).
func runDuck(d *duckAnchor, cell *TPCHQuery, q string) {
	if d == nil || cell.DuckDBErr != "" {
		return
	}
	took, rows, err := d.query(fmt.Sprintf("Q%d", cell.N), q)
	if err != nil {
		cell.DuckDBErr = err.Error()
		return
	}
	cell.DuckDB = append(cell.DuckDB, took)
	cell.DuckDBRows = rows
}
