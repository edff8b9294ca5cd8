package history

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgident"
)

// ErrNUL is wrapped by errors about a value holding a NUL byte, which no
// PostgreSQL text value can hold and no literal can carry.
var ErrNUL = errors.New("value holds a NUL byte")

// SQLWriter renders row events as a patch: INSERT, UPDATE and DELETE
// statements, in one transaction (BEGIN; … COMMIT;), that turn the from
// side of a diff into its to side. Identifiers are quoted
// (pgx.Identifier.Sanitize); every value is a string literal with an
// explicit cast to its column's type ('…'::"numeric"), so PostgreSQL
// parses its own text output back, exactly. Literals are safe under either
// standard_conforming_strings setting: quotes are doubled, and a value
// holding a backslash is written as an E” literal with backslashes
// doubled. UPDATE sets only the changed columns and, like DELETE, is keyed
// by the primary key; under REPLICA IDENTITY FULL (every column a key), a
// DELETE removes one matching row through its ctid. Conflict and stat
// events are not part of a patch and are skipped.
//
// A patch holds no DDL. When a table's columns differ between the two
// versions (the table event's SchemaChange), the patch is written for the
// newer version's columns and says so in a comment before that table's
// statements: the DBA runs the ALTER TABLE first, then the patch. Columns
// only the older version had are never named; an added column is set only
// where its value is not NULL (see Service.Diff).
type SQLWriter struct {
	bw      *bufio.Writer
	started bool
	table   string
	cols    []Column
	allKey  bool
	err     error
}

// NewSQLWriter returns a patch writer on w.
func NewSQLWriter(w io.Writer) *SQLWriter { return &SQLWriter{bw: bufio.NewWriter(w)} }

// QuoteTable quotes a table's canonical name (the mirror's key, as
// replication.TableName.String prints it: public.accounts,
// public."Accounts", "a.b".c) as SQL, every part double-quoted. A name not
// in canonical form is a key written before keys were quoted ("schema.name"
// taken literally): it is split at its first dot as it was written then,
// so a patch from such a mirror still names the right table.
func QuoteTable(name string) string {
	if t, err := pgident.ParseTable(name); err == nil && t.String() == name {
		return pgx.Identifier{t.Schema, t.Name}.Sanitize()
	}
	schema, rest, ok := strings.Cut(name, ".")
	if !ok {
		return pgx.Identifier{name}.Sanitize()
	}
	return pgx.Identifier{schema, rest}.Sanitize()
}

// quoteType quotes a Column.Type: a catalog type name, schema-qualified
// unless in pg_catalog. bit is cast as varbit: a bare ::bit means bit(1),
// and varbit assigns to any bit(n) column.
func quoteType(t string) string {
	switch t {
	case "bit":
		t = "varbit"
	case "_bit":
		t = "_varbit"
	}
	if schema, name, ok := strings.Cut(t, "."); ok {
		return pgx.Identifier{schema, name}.Sanitize()
	}
	return pgx.Identifier{t}.Sanitize()
}

// noEquality lists built-in types without an equality operator.
var noEquality = map[string]bool{
	"json": true, "xml": true, "point": true, "line": true, "lseg": true,
	"box": true, "path": true, "polygon": true, "circle": true,
	"_json": true, "_xml": true, "_point": true,
}

// Literal renders v as a SQL literal cast to typ; nil is NULL.
func Literal(v *string, typ string) (string, error) {
	if v == nil {
		return "NULL", nil
	}
	s := *v
	if strings.IndexByte(s, 0) >= 0 {
		return "", ErrNUL
	}
	q := strings.ReplaceAll(s, "'", "''")
	if strings.Contains(s, `\`) {
		q = "E'" + strings.ReplaceAll(q, `\`, `\\`) + "'"
	} else {
		q = "'" + q + "'"
	}
	return q + "::" + quoteType(typ), nil
}

func (w *SQLWriter) begin() {
	if !w.started {
		w.started = true
		w.bw.WriteString("BEGIN;\n")
	}
}

// Write renders one event.
func (w *SQLWriter) Write(e *Event) error {
	if w.err != nil {
		return w.err
	}
	w.begin()
	switch e.Type {
	case EventTable:
		w.table, w.cols, w.allKey = QuoteTable(e.Table), e.Columns, true
		for _, c := range e.Columns {
			w.allKey = w.allKey && c.Key
		}
		if sc := e.SchemaChange; sc != nil {
			_, err := w.bw.WriteString(schemaComment(e.Table, sc))
			return err
		}
		return nil
	case EventRow:
	default:
		return nil
	}
	var stmt string
	var err error
	switch e.Op {
	case OpAdded:
		stmt, err = w.insert(e.To)
	case OpRemoved:
		stmt, err = w.delete(e.From)
	default:
		stmt, err = w.update(e)
	}
	if err != nil {
		w.err = fmt.Errorf("sql patch for %s key %s: %w", e.Table, keyText(e.Key), err)
		return w.err
	}
	_, err = w.bw.WriteString(stmt)
	return err
}

func keyText(k *Row) string {
	if k == nil {
		return "?"
	}
	var parts []string
	for i, n := range k.Names {
		parts = append(parts, n+"="+displayValue(k.Values[i]))
	}
	return strings.Join(parts, ",")
}

func (w *SQLWriter) column(name string) (Column, bool) {
	for _, c := range w.cols {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

func (w *SQLWriter) insert(r *Row) (string, error) {
	var names, vals []string
	for i, n := range r.Names {
		c, ok := w.column(n)
		if !ok {
			continue
		}
		lit, err := Literal(r.Values[i], c.Type)
		if err != nil {
			return "", fmt.Errorf("column %s: %w", n, err)
		}
		names = append(names, pgx.Identifier{n}.Sanitize())
		vals = append(vals, lit)
	}
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s);\n", w.table, strings.Join(names, ", "), strings.Join(vals, ", ")), nil
}

// where renders the key condition of r.
func (w *SQLWriter) where(r *Row) (string, error) {
	var terms []string
	for _, c := range w.cols {
		if !c.Key {
			continue
		}
		v, ok := r.Get(c.Name)
		if !ok {
			return "", fmt.Errorf("row has no key column %s", c.Name)
		}
		id := pgx.Identifier{c.Name}.Sanitize()
		if v == nil {
			terms = append(terms, id+" IS NULL")
			continue
		}
		if noEquality[c.Type] {
			// Key columns of a REPLICA IDENTITY FULL table may have a type
			// without "=": compare the text output, which the mirror
			// stores exactly.
			lit, err := Literal(v, "text")
			if err != nil {
				return "", fmt.Errorf("column %s: %w", c.Name, err)
			}
			terms = append(terms, id+"::text = "+lit)
			continue
		}
		lit, err := Literal(v, c.Type)
		if err != nil {
			return "", fmt.Errorf("column %s: %w", c.Name, err)
		}
		terms = append(terms, id+" = "+lit)
	}
	if len(terms) == 0 {
		return "", errors.New("table has no key columns")
	}
	return strings.Join(terms, " AND "), nil
}

func (w *SQLWriter) delete(r *Row) (string, error) {
	cond, err := w.where(r)
	if err != nil {
		return "", err
	}
	if w.allKey {
		return fmt.Sprintf("DELETE FROM %s WHERE ctid = (SELECT ctid FROM %s WHERE %s LIMIT 1);\n", w.table, w.table, cond), nil
	}
	return fmt.Sprintf("DELETE FROM %s WHERE %s;\n", w.table, cond), nil
}

func (w *SQLWriter) update(e *Event) (string, error) {
	var sets []string
	for _, n := range e.Changed {
		c, ok := w.column(n)
		if !ok {
			continue // a column the target version does not have
		}
		v, _ := e.To.Get(n)
		lit, err := Literal(v, c.Type)
		if err != nil {
			return "", fmt.Errorf("column %s: %w", n, err)
		}
		sets = append(sets, pgx.Identifier{n}.Sanitize()+" = "+lit)
	}
	if len(sets) == 0 {
		return "", nil
	}
	cond, err := w.where(e.To)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("UPDATE %s SET %s WHERE %s;\n", w.table, strings.Join(sets, ", "), cond), nil
}

// Fail records that the stream feeding the writer failed, so Close ends
// the patch with ROLLBACK: a patch cut short never commits half of it.
func (w *SQLWriter) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// Close ends the transaction and flushes. After an error it writes
// ROLLBACK, so a patch cut short never commits half its changes.
func (w *SQLWriter) Close() error {
	w.begin()
	if w.err != nil {
		w.bw.WriteString("ROLLBACK;\n")
		w.bw.Flush()
		return w.err
	}
	w.bw.WriteString("COMMIT;\n")
	return w.bw.Flush()
}

// schemaComment is the SQL comment that precedes a table's statements when
// its columns differ between the two versions. Names are quoted
// identifiers with control characters escaped, so no name can end the
// comment and smuggle a statement into the patch.
func schemaComment(table string, sc *SchemaChange) string {
	names := func(ns []string) string {
		if len(ns) == 0 {
			return "none"
		}
		q := make([]string, len(ns))
		for i, n := range ns {
			q[i] = commentSafe(pgx.Identifier{n}.Sanitize())
		}
		return strings.Join(q, ", ")
	}
	retyped := ""
	if len(sc.Retyped) > 0 {
		retyped = "; retyped: " + names(sc.Retyped)
	}
	return fmt.Sprintf("-- %s: the columns differ between the two versions (added: %s; dropped: %s%s).\n"+
		"-- This patch holds no DDL: first ALTER the table to the newer version's columns, then run it.\n",
		commentSafe(QuoteTable(table)), names(sc.Added), names(sc.Dropped), retyped)
}

// commentSafe escapes control characters (a newline would end a "--"
// comment) as Go escapes.
func commentSafe(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
