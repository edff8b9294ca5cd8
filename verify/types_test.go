package verify

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// everyTypeSchema is a table with every common column type, a dropped and a
// generated column (neither is published), an enum, a domain over int and
// one over bool (whose ::text cast would print 'true').
const everyTypeSchema = `
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN posint AS int4 CHECK (VALUE > 0);
CREATE DOMAIN boolish AS bool;
CREATE TABLE every (
  id int8 PRIMARY KEY,
  i2 int2, i4 int4, n numeric, n3 numeric(12,3), f4 float4, f8 float8,
  t text, vc varchar(10), b bytea, bo bool, ch char(4), qc "char",
  d date, tm time, ttz timetz, ts timestamp, tstz timestamptz, iv interval,
  u uuid, j json, jb jsonb, ip inet, cid cidr, mac macaddr,
  ia int[], ta text[], e mood, dom posint, dbool boolish,
  gone int,
  gen int8 GENERATED ALWAYS AS (i4::int8 * 2) STORED,
  "Mixed ""Case"" col" text
);
ALTER TABLE every DROP COLUMN gone;
`

// everyTypeRows are inserted one statement each. They cover trailing zeros
// and NaN in numerics, NaN/±Infinity/-0 and inexact values in floats,
// multibyte text, empty string vs NULL, COPY-escaped characters, a
// non-ASCII "char", BC and infinite dates, quoted and NULL array elements.
var everyTypeRows = []string{
	`(1, 1, -2147483648, 1.50, 2.5, 1.1, 0.1, 'héllo wörld ☃ 😀', '', '\x00ff', true, 'ab', 'x',
	  '2026-11-30', '10:00:00.5', '10:00:00+05:30', '2026-11-30 10:00:00.123456', '2026-11-30 10:00:00+02',
	  '1 year 2 mons 3 days 04:05:06.7', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
	  '{"b": 1, "a": [1, 2]}', '{"b": 1, "a": [1, 2]}', '192.168.0.1', '10.0.0.0/8', '08:00:2b:01:02:03',
	  '{1,NULL,3}', '{"a b",NULL,"q\"uote","",x,"back\\slash"}', 'happy', 5, true, 'mixed')`,
	`(2, -32768, 0, 'NaN', 0.000, 'NaN', '-Infinity', E'tab\there\nnewline\\back\rcr', ' ', '\x', false, 'a', 'é',
	  'infinity', '24:00:00', '23:59:59.999999-03', '-infinity', 'infinity',
	  '-1 day +02:00', '00000000-0000-0000-0000-000000000000',
	  'null', '"str"', '::1', '2001:db8::/32', '00:00:00:00:00:00',
	  '{}', '{NULL}', 'sad', 1, false, '')`,
	`(3, 32767, 2147483647, -0.00001000, -12345.678, '-0', '-0', 'NULL', 'null', '\x5c4e', NULL, '    ', ' ',
	  '0044-03-15 BC', '00:00:00', '00:00:00+00', '0044-03-15 12:00:00.5 BC', '1900-01-01 00:00:00+00',
	  '0', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '{}', '{}', '10.1.2.3/24', '10.1.0.0/16', 'ff:ff:ff:ff:ff:ff',
	  '{{1,2},{3,4}}', '{"{",",","}","\\"}', 'ok', 2147483647, NULL, NULL)`,
	`(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
	`(5, 7, 7, 123456789012345678901234567890.123456789, 1e-3, 3.4028235e38, 1.7976931348623157e308, '\N', '-', '\x2d', true, NULL, NULL,
	  '10000-01-01', '12:34:56.789', '12:34:56.789+14', '294276-12-31 23:59:59.999999', '2000-02-29 12:00:00.000001-08',
	  '178000000 years', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '[1, 2.50, "x\u00e9"]', '{"x": 1.50, "a": null}',
	  '0.0.0.0/0', '::/0', '01:02:03:04:05:06', '{-1,0,1}', '{"NULL","null",""}', 'happy', 3, true, '1:x-')`,
}

// everyTypeRowsFor is everyTypeRows as a server of version v stores them
// for TestEveryTypeHashMatches: before 15, "char" printed a non-ASCII byte
// raw (15 prints it as \ooo), which is not valid UTF-8 and makes the SQL
// row encoding (convert_to) fail, so row 2's "char" is ASCII there. (A
// known limitation on 14, in the README.)
func everyTypeRowsFor(v int) []string {
	if v >= 150000 {
		return everyTypeRows
	}
	rows := slices.Clone(everyTypeRows)
	rows[1] = strings.Replace(rows[1], `false, 'a', 'é',`, `false, 'a', 'e',`, 1)
	return rows
}

const everyTypeColumns = `(id, i2, i4, n, n3, f4, f8, t, vc, b, bo, ch, qc, d, tm, ttz, ts, tstz, iv, u, j, jb, ip, cid, mac, ia, ta, e, dom, dbool, "Mixed ""Case"" col")`

// TestEveryTypeHashMatches is the crux of verify: for every row of a table
// with every common type, the vrow1 bytes built in SQL equal the bytes Go
// builds from what PostgreSQL sends (COPY text and a real pgoutput stream),
// and each hash computed in PostgreSQL equals the Go hash.
func TestEveryTypeHashMatches(t *testing.T) {
	url := pg.NewDB(t)
	conn := connect(t, url, nil)
	mustExec(t, conn, everyTypeSchema)
	mustExec(t, conn, `CREATE PUBLICATION pub FOR TABLE every`)

	// The slot must exist before the inserts so its stream carries them.
	repl := connect(t, url, map[string]string{"replication": "database"})
	slot, err := pglogrepl.CreateReplicationSlot(t.Context(), repl, "every_slot", "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Temporary: true, SnapshotAction: "NOEXPORT_SNAPSHOT"})
	if err != nil {
		t.Fatalf("create slot: %v", err)
	}
	rows := everyTypeRowsFor(pg.ServerVersion())
	for _, r := range rows {
		mustExec(t, conn, "INSERT INTO every "+everyTypeColumns+" VALUES "+r)
	}

	if err := CheckSession(t.Context(), conn); err != nil {
		t.Fatal(err)
	}
	tbl, err := LoadTable(t.Context(), conn, "public", "every")
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Columns) != 31 || tbl.Columns[30].Name != `Mixed "Case" col` || len(tbl.Key) != 1 || tbl.Key[0] != 0 {
		t.Fatalf("LoadTable: %+v", tbl)
	}
	for _, c := range tbl.Columns {
		if c.Name == "gone" || c.Name == "gen" {
			t.Fatalf("LoadTable published %q", c.Name)
		}
	}

	// What PostgreSQL prints: COPY text, escapes decoded, keyed by id.
	colList := make([]string, len(tbl.Columns))
	for i, c := range tbl.Columns {
		colList[i] = pgxIdent(c.Name)
	}
	copied := map[string][]byte{}
	for _, r := range copyRows(t, conn, "SELECT "+strings.Join(colList, ", ")+" FROM every") {
		copied[string(r[0])] = rowenc.Encode(r)
	}
	if len(copied) != len(rows) {
		t.Fatalf("COPY returned %d rows, want %d", len(copied), len(rows))
	}

	// What pgoutput sends: the same bytes.
	streamed := readInserts(t, repl, slot.ConsistentPoint, len(rows), tbl)
	for id, want := range copied {
		if got := streamed[id]; !bytes.Equal(got, want) {
			t.Errorf("id %s: pgoutput row differs from COPY row\n pgoutput %q\n copy     %q", id, got, want)
		}
	}

	// What the SQL side builds: the same bytes, column by column.
	encRows := mustQuery(t, conn, "SELECT id::text, "+RowEncodingSQL(tbl.Columns)+" FROM every")
	for _, r := range encRows {
		want := copied[string(r[0])]
		if !bytes.Equal(r[1], want) {
			t.Errorf("id %s: SQL vrow1 differs from COPY vrow1: %s", r[0], firstDiffColumn(r[1], want, tbl))
		}
	}

	// The server agrees with every Go hash, so the fast one is chosen.
	if id, failed, err := ChooseHash(t.Context(), conn); err != nil || id != rowhash.PGHash64 || len(failed) != 0 {
		t.Errorf("ChooseHash = %v, %v, %v; want pghash64", id, failed, err)
	}
	// And every hash agrees.
	for _, id := range rowhash.All() {
		if err := SelfTest(t.Context(), conn, id); err != nil {
			t.Errorf("SelfTest: %v", err)
		}
		rows := mustQuery(t, conn, "SELECT id::text, "+RowHashSQL(tbl.Columns, id)+" FROM every")
		for _, r := range rows {
			h, err := strconv.ParseInt(string(r[1]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if want := id.Sum(copied[string(r[0])]); uint64(h) != want {
				t.Errorf("%v: id %s: PostgreSQL hash %d, Go hash %d", id, r[0], h, int64(want))
			}
		}
		// And the whole-table digest.
		q, err := TableDigestQuery(tbl, id)
		if err != nil {
			t.Fatal(err)
		}
		got := parseDigestRow(t, mustQuery(t, conn, q)[0])
		var want rowhash.Digest
		for _, row := range copied {
			want = want.Add(id.Sum(row))
		}
		if got != want {
			t.Errorf("%v: table digest PostgreSQL %v, Go %v", id, got, want)
		}
	}
	if t.Failed() {
		return
	}
	// Self-check of the test: the ::text casts this test guards against
	// really do differ here, so the format() path is exercised. ("char"
	// is not probed: PostgreSQL 15 made its text cast print non-ASCII
	// bytes as octal escapes like its output function; older servers
	// differ, and format() is right on both.)
	for _, probe := range []string{"bo::text <> format('%s', bo)", "ch::text <> format('%s', ch)", "ip::text <> format('%s', ip)", "dbool::text <> format('%s', dbool)"} {
		if r := mustQuery(t, conn, "SELECT count(*) FROM every WHERE "+probe); string(r[0][0]) == "0" {
			t.Errorf("probe %q found no row where the cast differs", probe)
		}
	}
}

func pgxIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

func parseDigestRow(t *testing.T, r [][]byte) rowhash.Digest {
	t.Helper()
	n, err1 := strconv.ParseUint(string(r[len(r)-2]), 10, 64)
	s, err2 := strconv.ParseUint(string(r[len(r)-1]), 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("digest row %q: %v %v", r, err1, err2)
	}
	return rowhash.Digest{Count: n, Sum: s}
}

// firstDiffColumn names the first column whose text differs between two
// vrow1 rows.
func firstDiffColumn(a, b []byte, tbl Table) string {
	va, errA := rowenc.Decode(a)
	vb, errB := rowenc.Decode(b)
	if errA != nil || errB != nil {
		return fmt.Sprintf("undecodable: %v %v (%q vs %q)", errA, errB, a, b)
	}
	for i := range min(len(va), len(vb)) {
		if !bytes.Equal(va[i], vb[i]) || (va[i] == nil) != (vb[i] == nil) {
			return fmt.Sprintf("column %q (%s): SQL %q, PostgreSQL %q", tbl.Columns[i].Name, tbl.Columns[i].Type, va[i], vb[i])
		}
	}
	return fmt.Sprintf("column counts %d vs %d", len(va), len(vb))
}

// readInserts streams pgoutput from the slot until it has seen n inserts
// into tbl and their commit, and returns each inserted row's vrow1 bytes
// (built from the tuple's 'n'/'t' columns) keyed by the first column.
func readInserts(t *testing.T, repl *pgconn.PgConn, startLSN string, n int, tbl Table) map[string][]byte {
	t.Helper()
	lsn, err := pglogrepl.ParseLSN(startLSN)
	if err != nil {
		t.Fatal(err)
	}
	err = pglogrepl.StartReplication(t.Context(), repl, "every_slot", lsn, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names 'pub'"},
	})
	if err != nil {
		t.Fatalf("start replication: %v", err)
	}
	out := map[string][]byte{}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		msg, err := repl.ReceiveMessage(t.Context())
		if err != nil {
			t.Fatalf("receive: %v", err)
		}
		cd, ok := msg.(*pgproto3.CopyData)
		if !ok {
			if er, isErr := msg.(*pgproto3.ErrorResponse); isErr {
				t.Fatalf("server error: %s", er.Message)
			}
			continue
		}
		if cd.Data[0] != pglogrepl.XLogDataByteID {
			continue
		}
		xld, err := pglogrepl.ParseXLogData(cd.Data[1:])
		if err != nil {
			t.Fatal(err)
		}
		lm, err := pglogrepl.Parse(xld.WALData)
		if err != nil {
			t.Fatal(err)
		}
		switch m := lm.(type) {
		case *pglogrepl.RelationMessage:
			if len(m.Columns) != len(tbl.Columns) {
				t.Fatalf("Relation message has %d columns, LoadTable %d", len(m.Columns), len(tbl.Columns))
			}
			for i, c := range m.Columns {
				if c.Name != tbl.Columns[i].Name {
					t.Fatalf("Relation column %d is %q, LoadTable says %q", i, c.Name, tbl.Columns[i].Name)
				}
			}
		case *pglogrepl.InsertMessage:
			vals := make([][]byte, len(m.Tuple.Columns))
			for i, c := range m.Tuple.Columns {
				switch c.DataType {
				case 'n':
					vals[i] = nil
				case 't':
					vals[i] = append([]byte{}, c.Data...)
				default:
					t.Fatalf("column %d: unexpected tuple data type %q", i, c.DataType)
				}
			}
			out[string(vals[0])] = rowenc.Encode(vals)
		case *pglogrepl.CommitMessage:
			if len(out) >= n {
				return out
			}
		}
	}
	t.Fatalf("saw %d of %d inserts before the deadline", len(out), n)
	return nil
}
