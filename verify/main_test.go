package verify

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/rowenc"
)

var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}

// connect opens a connection with the canonical session settings plus
// extra runtime parameters (e.g. replication=database).
func connect(t testing.TB, url string, extra map[string]string) *pgconn.PgConn {
	t.Helper()
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(cfg.RuntimeParams, rowenc.SessionParams())
	maps.Copy(cfg.RuntimeParams, extra)
	conn, err := pgconn.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// mustExec runs SQL (possibly several statements) and fails the test on
// error.
func mustExec(t testing.TB, conn *pgconn.PgConn, sql string) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), sql).ReadAll(); err != nil {
		t.Fatalf("exec %q: %v", sql, err)
	}
}

func mustQuery(t testing.TB, conn *pgconn.PgConn, sql string) [][][]byte {
	t.Helper()
	rows, err := simpleQuery(t.Context(), conn, sql)
	if err != nil {
		t.Fatalf("query %q: %v", sql, err)
	}
	return rows
}

// copyRows runs COPY (query) TO STDOUT in text format and returns the rows
// with escapes decoded: nil for NULL (\N), else the value's bytes, exactly
// the output-function text.
func copyRows(t *testing.T, conn *pgconn.PgConn, query string) [][][]byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := conn.CopyTo(t.Context(), &buf, "COPY ("+query+") TO STDOUT"); err != nil {
		t.Fatalf("copy %q: %v", query, err)
	}
	if buf.Len() == 0 {
		return nil
	}
	var rows [][][]byte
	for _, line := range bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n")) {
		fields, err := decodeCopyLine(line)
		if err != nil {
			t.Fatalf("copy %q: %v", query, err)
		}
		rows = append(rows, fields)
	}
	return rows
}

// decodeCopyLine splits one line of COPY text format into fields and
// decodes its backslash escapes (\N is NULL; \b \f \n \r \t \v \\, octal
// \ooo and hex \xhh).
func decodeCopyLine(line []byte) ([][]byte, error) {
	var fields [][]byte
	for _, raw := range bytes.Split(line, []byte("\t")) {
		if string(raw) == `\N` {
			fields = append(fields, nil)
			continue
		}
		out := []byte{}
		for i := 0; i < len(raw); i++ {
			c := raw[i]
			if c != '\\' {
				out = append(out, c)
				continue
			}
			i++
			if i >= len(raw) {
				return nil, fmt.Errorf("trailing backslash in %q", raw)
			}
			switch e := raw[i]; e {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'v':
				out = append(out, '\v')
			case 'x':
				v, n := 0, 0
				for n < 2 && i+1 < len(raw) && isHex(raw[i+1]) {
					v = v*16 + hexVal(raw[i+1])
					i++
					n++
				}
				if n == 0 {
					return nil, fmt.Errorf("bad \\x escape in %q", raw)
				}
				out = append(out, byte(v))
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for n := 1; n < 3 && i+1 < len(raw) && raw[i+1] >= '0' && raw[i+1] <= '7'; n++ {
						v = v*8 + int(raw[i+1]-'0')
						i++
					}
					out = append(out, byte(v))
				} else {
					out = append(out, e)
				}
			}
		}
		fields = append(fields, out)
	}
	return fields, nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}
