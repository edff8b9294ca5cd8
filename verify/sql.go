package verify

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// Column is one published column of a table, as pgoutput's Relation
// message lists it.
type Column struct {
	// Name is the column name (unquoted).
	Name string
	// Type is the type as format_type(atttypid, atttypmod) prints it
	// ("integer", "character(4)", "timestamp with time zone", "text[]",
	// "public.mood"), or its pg_type.typname.
	Type string
	// Collatable is true for types with a collation (text, varchar,
	// char(n), domains over them). A text or varchar key column is
	// compared as itself under COLLATE "C" (the mirror's byte order, and
	// an index on it in "C" can serve the comparison); other key columns
	// without a native order are compared through their output text.
	Collatable bool
}

// Table is a table as verify sees it: its published columns in relation
// order (dropped and generated columns excluded, as pgoutput excludes
// them) and its primary key.
type Table struct {
	Schema, Name string
	Columns      []Column
	// Key holds indexes into Columns of the primary-key columns, in key
	// order.
	Key []int
}

// Ident returns the table's quoted, schema-qualified name.
func (t Table) Ident() string { return pgx.Identifier{t.Schema, t.Name}.Sanitize() }

// Validate checks that the table has columns and an in-range key.
func (t Table) Validate() error {
	if len(t.Columns) == 0 {
		return fmt.Errorf("table %s: no published columns", t.Ident())
	}
	if len(t.Key) == 0 {
		return fmt.Errorf("table %s: no primary key", t.Ident())
	}
	for _, k := range t.Key {
		if k < 0 || k >= len(t.Columns) {
			return fmt.Errorf("table %s: key column index %d out of range", t.Ident(), k)
		}
	}
	return nil
}

// KeyKinds returns the rowenc key kinds of the primary-key columns.
func (t Table) KeyKinds() []rowenc.KeyKind {
	kinds := make([]rowenc.KeyKind, len(t.Key))
	for i, k := range t.Key {
		kinds[i] = rowenc.KindForType(t.Columns[k].Type)
	}
	return kinds
}

// baseType strips a type's modifiers, array brackets excepted:
// "character varying(20)" -> "character varying",
// "timestamp(3) with time zone" -> "timestamp with time zone".
func baseType(typ string) string {
	t := strings.ToLower(strings.TrimSpace(typ))
	for {
		i := strings.IndexByte(t, '(')
		if i < 0 {
			break
		}
		j := strings.IndexByte(t[i:], ')')
		if j < 0 {
			break
		}
		t = t[:i] + t[i+j+1:]
	}
	t = strings.Join(strings.Fields(t), " ")
	return strings.TrimPrefix(t, "pg_catalog.")
}

// textCastTypes are the types whose cast to text is an I/O conversion
// (it calls the output function) or a binary-coercible no-op, so col::text
// is exactly the text pgoutput sends. Types with a cast function of their
// own that renders differently (boolean: 'true' vs 't'; character(n):
// trims the padding; inet/cidr: adds /32; "char": raw non-ASCII bytes
// before PostgreSQL 15) are deliberately absent, as is every type not
// listed: they go through format('%s', col), which always calls the output
// function. Arrays are always I/O conversions (array_out calls the
// element's output function).
var textCastTypes = map[string]bool{
	"smallint": true, "int2": true, "integer": true, "int4": true, "bigint": true, "int8": true,
	"numeric": true, "decimal": true, "real": true, "float4": true, "double precision": true, "float8": true,
	"text": true, "character varying": true, "varchar": true,
	"date": true, "time without time zone": true, "time": true, "time with time zone": true, "timetz": true,
	"timestamp without time zone": true, "timestamp": true, "timestamp with time zone": true, "timestamptz": true,
	"interval": true, "uuid": true, "json": true, "jsonb": true, "bytea": true,
}

// ColumnTextSQL returns an SQL expression yielding column c's output-function
// text, or NULL when the column is NULL.
func ColumnTextSQL(c Column) string {
	id := pgx.Identifier{c.Name}.Sanitize()
	bt := baseType(c.Type)
	switch {
	case bt == "text":
		return id
	case textCastTypes[bt] || strings.HasSuffix(bt, "[]"):
		return id + "::text"
	}
	return fmt.Sprintf("CASE WHEN %s IS NULL THEN NULL ELSE pg_catalog.format('%%s', %s) END", id, id)
}

// RowEncodingSQL returns the SQL expression of type text yielding the vrow1
// encoding (package rowenc) of a row with the given columns: per column '-'
// for NULL, else octet_length(text) || ':' || text.
func RowEncodingSQL(cols []Column) string {
	texts := make([]string, len(cols))
	for i, c := range cols {
		texts[i] = ColumnTextSQL(c)
	}
	return encodingSQL(texts)
}

// encodingSQL is the vrow1 concatenation of text expressions.
func encodingSQL(texts []string) string {
	parts := make([]string, len(texts))
	for i, e := range texts {
		parts[i] = fmt.Sprintf("coalesce(pg_catalog.octet_length(%s)::text || ':' || %s, '-')", e, e)
	}
	if len(parts) == 0 {
		return "''"
	}
	return strings.Join(parts, " || ")
}

// RowHashSQL returns the SQL expression of type bigint whose bits are
// hash.Sum(vrow1 bytes of the row).
func RowHashSQL(cols []Column, hash rowhash.ID) string {
	return hash.SQL(RowEncodingSQL(cols))
}

// rowSource is the FROM item every digest and hash query reads: a
// subquery that computes each column's output text once per row, as s.c0,
// s.c1, … (RowEncodingSQL's direct form calls every non-text output
// function twice, for the length and for the bytes: on verify.md's table
// shape the level-0 query took 620 ns of backend CPU per row that way,
// 403 ns this way, BenchmarkPostgresLevel0), plus the extra
// expressions as s.x0, s.x1, …, evaluated on the table (aliased src),
// filtered by where if not empty. OFFSET 0 keeps the planner from
// flattening the subquery back into the double evaluation.
//
// Outer queries see only these aliases, so no user column name can clash
// with them.
type rowSource struct {
	t      Table
	extras []string
	where  string
}

func (r rowSource) sql() string {
	items := make([]string, 0, len(r.t.Columns)+len(r.extras))
	for i, c := range r.t.Columns {
		items = append(items, fmt.Sprintf("%s AS c%d", ColumnTextSQL(c), i))
	}
	for i, e := range r.extras {
		items = append(items, fmt.Sprintf("%s AS x%d", e, i))
	}
	where := ""
	if r.where != "" {
		where = " WHERE " + r.where
	}
	return fmt.Sprintf("(SELECT %s FROM %s AS %s%s OFFSET 0) s", strings.Join(items, ", "), r.t.Ident(), srcAlias, where)
}

// text returns the outer reference to column i's text.
func (r rowSource) text(i int) string { return fmt.Sprintf("s.c%d", i) }

// extra returns the outer reference to extra expression i.
func (r rowSource) extra(i int) string { return fmt.Sprintf("s.x%d", i) }

// rowHash returns the outer expression of the row hash.
func (r rowSource) rowHash(hash rowhash.ID) string {
	texts := make([]string, len(r.t.Columns))
	for i := range texts {
		texts[i] = r.text(i)
	}
	return hash.SQL(encodingSQL(texts))
}

// keyTexts returns the outer references to the key columns' texts.
func (r rowSource) keyTexts() []string {
	out := make([]string, len(r.t.Key))
	for i, k := range r.t.Key {
		out[i] = r.text(k)
	}
	return out
}

// two64 is 2^64 as an SQL numeric literal.
const two64 = "18446744073709551616"

// digestSumSQL turns sum(bigint) (exact numeric) into Σ mod 2^64 in
// [0, 2^64), printed as an unsigned decimal.
func digestSumSQL(h string) string {
	return fmt.Sprintf("((coalesce(sum(%s), 0) %% %s + %s) %% %s)::text", h, two64, two64, two64)
}

// TableDigestQuery returns a query yielding one row (count, Σ H mod 2^64
// as text) over the whole table.
func TableDigestQuery(t Table, hash rowhash.ID) (string, error) {
	if err := t.Validate(); err != nil {
		return "", err
	}
	src := rowSource{t: t}
	return fmt.Sprintf("SELECT count(*), %s FROM %s", digestSumSQL(src.rowHash(hash)), src.sql()), nil
}

// integerKey returns the quoted key column of a table whose key is a
// single int2/int4/int8 column.
func integerKey(t Table) (string, error) {
	if err := t.Validate(); err != nil {
		return "", err
	}
	if len(t.Key) != 1 {
		return "", fmt.Errorf("table %s: bucketed digests need a single-column integer key, have %d columns", t.Ident(), len(t.Key))
	}
	switch rowenc.KindForType(t.Columns[t.Key[0]].Type) {
	case rowenc.KindInt2, rowenc.KindInt4, rowenc.KindInt8:
	default:
		return "", fmt.Errorf("table %s: bucketed digests need an integer key, %q is %s", t.Ident(), t.Columns[t.Key[0]].Name, t.Columns[t.Key[0]].Type)
	}
	return pgx.Identifier{t.Columns[t.Key[0]].Name}.Sanitize(), nil
}

// Bucket returns the fixed-width bucket of an integer key: floor(pk/width),
// so bucket b holds keys [b·width, (b+1)·width). The SQL of
// BucketDigestQuery computes the same.
func Bucket(pk, width int64) int64 {
	b := pk / width
	if pk%width < 0 {
		b--
	}
	return b
}

// BucketDigestQuery returns the level-0 query for a table with a single
// integer key: one row per non-empty bucket, ordered by bucket, with
// columns (bucket bigint, count bigint, Σ H mod 2^64 as text). A bucket
// absent from the result is empty, digest (0, 0).
//
// The bucket is floor(pk / width), computed with truncating division and a
// correction, so no subtraction can overflow int8.
func BucketDigestQuery(t Table, hash rowhash.ID, width int64) (string, error) {
	pk, err := integerKey(t)
	if err != nil {
		return "", err
	}
	if width <= 0 {
		return "", fmt.Errorf("table %s: bucket width %d must be positive", t.Ident(), width)
	}
	w := strconv.FormatInt(width, 10)
	key := srcAlias + "." + pk
	src := rowSource{t: t, extras: []string{
		fmt.Sprintf("(%s::int8 / %s - CASE WHEN %s::int8 %% %s < 0 THEN 1 ELSE 0 END)", key, w, key, w),
	}}
	return fmt.Sprintf("SELECT %s, count(*), %s FROM %s GROUP BY 1 ORDER BY 1",
		src.extra(0), digestSumSQL(src.rowHash(hash)), src.sql()), nil
}

// clampedBucketDigestQuery is BucketDigestQuery with every bucket below
// lo counted in lo and every bucket above hi in hi, so a table whose keys
// reach far beyond the mirror's key range still returns at most
// hi-lo+1 rows (the mirror's first and last buckets are open-ended too),
// over the rows of the table that satisfy where (a predicate on the table
// aliased src; "" for all), for one part of a parallel level 0.
func clampedBucketDigestQuery(t Table, hash rowhash.ID, width, lo, hi int64, where string) (string, error) {
	pk, err := integerKey(t)
	if err != nil {
		return "", err
	}
	if width <= 0 || lo > hi {
		return "", fmt.Errorf("table %s: bucket width %d, range %d..%d", t.Ident(), width, lo, hi)
	}
	w := strconv.FormatInt(width, 10)
	key := srcAlias + "." + pk
	src := rowSource{t: t, extras: []string{
		fmt.Sprintf("LEAST(GREATEST(%s::int8 / %s - CASE WHEN %s::int8 %% %s < 0 THEN 1 ELSE 0 END, %d), %d)", key, w, key, w, lo, hi),
	}, where: where}
	return fmt.Sprintf("SELECT %s, count(*), %s FROM %s GROUP BY 1 ORDER BY 1",
		src.extra(0), digestSumSQL(src.rowHash(hash)), src.sql()), nil
}

// KeyRange is a range of primary keys given as key column texts (output
// function text, as the mirror stores them): Lo inclusive, Hi exclusive,
// nil for unbounded. A bound may name fewer columns than the key (a
// prefix).
type KeyRange struct {
	Lo, Hi []string
}

// nativeOrderKinds are the key kinds whose rowenc byte order is the
// type's own order in PostgreSQL, so a range predicate can compare the
// column itself (and use the primary-key index). Others compare their
// output text under COLLATE "C", which is the byte order of KindBytes.
func nativeOrder(c Column) bool {
	switch rowenc.KindForType(c.Type) {
	case rowenc.KindInt2, rowenc.KindInt4, rowenc.KindInt8, rowenc.KindNumeric,
		rowenc.KindBool, rowenc.KindDate, rowenc.KindTimestamp:
		return true
	}
	bt := baseType(c.Type)
	return bt == "uuid" || bt == "bytea"
}

// srcAlias names the table in queries whose ORDER BY must refer to input
// columns: a bare ORDER BY name would pick an output column of the same
// name (the key's text), ordering integers as text.
const srcAlias = "src"

// keyOperand returns the SQL operand used to compare key column c,
// qualified by srcAlias. The bound values are untyped literals, which
// PostgreSQL resolves to the operand's type (or text): no type name is
// ever spliced into the query.
func keyOperand(c Column) string {
	id := srcAlias + "." + pgx.Identifier{c.Name}.Sanitize()
	switch {
	case nativeOrder(c):
		return id
	case c.Collatable && (baseType(c.Type) == "text" || baseType(c.Type) == "character varying" || baseType(c.Type) == "varchar"):
		// Not char(n): bpchar compares without trailing spaces, which is
		// not the byte order of its padded output text.
		return id + ` COLLATE "C"`
	}
	return "(" + ColumnTextSQL(c) + `) COLLATE "C"`
}

// boundSQL returns the row comparison "(k1, k2) op (v1, v2)" for a key
// prefix.
func boundSQL(t Table, vals []string, op string) (string, error) {
	if len(vals) > len(t.Key) {
		return "", fmt.Errorf("table %s: range bound has %d values for a %d-column key", t.Ident(), len(vals), len(t.Key))
	}
	cols := make([]string, len(vals))
	lits := make([]string, len(vals))
	for i, v := range vals {
		cols[i] = keyOperand(t.Columns[t.Key[i]])
		lit, err := QuoteLiteral(v)
		if err != nil {
			return "", fmt.Errorf("table %s: key column %q: %w", t.Ident(), t.Columns[t.Key[i]].Name, err)
		}
		lits[i] = lit
	}
	return fmt.Sprintf("(%s) %s (%s)", strings.Join(cols, ", "), op, strings.Join(lits, ", ")), nil
}

// RangeHashQuery returns a query yielding, for every row whose key lies in
// one of the ranges, the key columns' output texts followed by the row hash
// (bigint), ordered by key. With no ranges it covers the whole table.
//
// A prefix bound compares the prefix only: Lo = ("a") includes every key
// starting with "a", Hi = ("b") excludes every key starting with "b".
func RangeHashQuery(t Table, hash rowhash.ID, ranges []KeyRange) (string, error) {
	if err := t.Validate(); err != nil {
		return "", err
	}
	order := make([]string, len(t.Key))
	for i, k := range t.Key {
		order[i] = keyOperand(t.Columns[k])
	}
	var preds []string
	for _, r := range ranges {
		var conj []string
		if r.Lo != nil {
			s, err := boundSQL(t, r.Lo, ">=")
			if err != nil {
				return "", err
			}
			conj = append(conj, s)
		}
		if r.Hi != nil {
			s, err := boundSQL(t, r.Hi, "<")
			if err != nil {
				return "", err
			}
			conj = append(conj, s)
		}
		if len(conj) == 0 {
			preds = nil // an unbounded range covers everything
			break
		}
		preds = append(preds, "("+strings.Join(conj, " AND ")+")")
	}
	src := rowSource{t: t, extras: order, where: strings.Join(preds, " OR ")}
	return keyHashSelect(src, hash, ""), nil
}

// keyHashSelect returns the (key texts…, hash) query over src, whose
// extras are the key operands, ordered by them, with an optional outer
// filter.
func keyHashSelect(src rowSource, hash rowhash.ID, outerWhere string) string {
	order := make([]string, len(src.extras))
	for i := range order {
		order[i] = src.extra(i)
	}
	if outerWhere != "" {
		outerWhere = " WHERE " + outerWhere
	}
	return fmt.Sprintf("SELECT %s, %s FROM %s%s ORDER BY %s",
		strings.Join(src.keyTexts(), ", "), src.rowHash(hash), src.sql(), outerWhere, strings.Join(order, ", "))
}

// ErrLiteral is wrapped by QuoteLiteral's error for text PostgreSQL
// cannot hold.
var ErrLiteral = errors.New("text cannot be an SQL literal")

// QuoteLiteral returns s as an SQL string literal that means s whatever
// standard_conforming_strings is: single quotes are doubled, and a string
// with a backslash uses the E'…' form with backslashes doubled (as
// PostgreSQL's quote_literal does). PostgreSQL text cannot hold NUL, so a
// NUL byte is an error.
//
// Literals are inlined because the verify connection is a replication
// connection, which speaks only the simple query protocol.
func QuoteLiteral(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", fmt.Errorf("%w: %q contains a NUL byte", ErrLiteral, s)
	}
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`), nil
	}
	return q, nil
}
