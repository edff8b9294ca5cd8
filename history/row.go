package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// Column describes one column of a table as the history API reports it.
type Column struct {
	Name string `json:"name"`
	// Type is pg_type.typname, schema-qualified unless in pg_catalog (for
	// a domain: its base type); SQL patches cast values to it.
	Type string `json:"type"`
	Key  bool   `json:"key,omitempty"`
}

func columnsOf(rel *wal.Relation) []Column {
	out := make([]Column, len(rel.Columns))
	for i, c := range rel.Columns {
		out[i] = Column{Name: c.Name, Type: c.TypeName, Key: c.Key}
	}
	return out
}

// Row is one row: column names and values in table column order; a nil
// value is SQL NULL. Its JSON form is the stable contract of every JSON
// output: an object keyed by column name (in column order) whose values
// are PostgreSQL's text output for the column, or null. Nothing is
// re-typed, so numerics and floats stay exact.
type Row struct {
	Names  []string
	Values []*string
}

// Get returns the value of the named column and whether the row has it.
func (r *Row) Get(name string) (*string, bool) {
	for i, n := range r.Names {
		if n == name {
			return r.Values[i], true
		}
	}
	return nil, false
}

// MarshalJSON writes the row as an object in column order.
func (r Row) MarshalJSON() ([]byte, error) { return appendRow(nil, &r), nil }

// UnmarshalJSON reads an object of string-or-null values, keeping the
// order of its keys (the column order).
func (r *Row) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("row: want a JSON object")
	}
	r.Names, r.Values = nil, nil
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("row: %w", err)
		}
		name, _ := t.(string)
		var v *string
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("row column %q: %w", name, err)
		}
		r.Names = append(r.Names, name)
		r.Values = append(r.Values, v)
	}
	_, err := dec.Token()
	return err
}

// decodeRow turns a stored vrow1 value into a Row named by rel's columns.
// A row with fewer values than rel has columns lacks trailing ones (it was
// stored before ADD COLUMN appended them) and is returned without them,
// which compares by name as the diff rule wants. A row with more values
// than rel has columns was stored under another schema (a column dropped
// since): naming its values by position would put them under the wrong
// columns, so it is an error that says so.
func decodeRow(rel *wal.Relation, v []byte) (*Row, error) {
	return RawRow{V: v, names: nameList(rel), rel: rel}.Decode()
}

func nameList(rel *wal.Relation) []string {
	names := make([]string, len(rel.Columns))
	for i, c := range rel.Columns {
		names[i] = c.Name
	}
	return names
}

// RawRow is one row as the mirror stores it: vrow1 bytes, named by the
// columns of the read (in order; a row may hold fewer values: see
// decodeRow). Its bytes are valid only during the callback that receives
// it.
type RawRow struct {
	V     []byte
	names []string
	rel   *wal.Relation // for errors
}

// Decode turns the row into a Row (copying its values).
func (r RawRow) Decode() (*Row, error) {
	vals, err := rowenc.Decode(r.V)
	if err != nil {
		return nil, fmt.Errorf("decode row of %s: %w", r.rel.QualifiedName(), err)
	}
	if len(vals) > len(r.names) {
		return nil, widthError(r.rel, len(vals))
	}
	out := &Row{Names: r.names[:len(vals):len(vals)], Values: make([]*string, len(vals))}
	for i, b := range vals {
		if b != nil {
			s := string(b)
			out.Values[i] = &s
		}
	}
	return out, nil
}

// AppendJSON appends the row's JSON object (as Row.MarshalJSON writes it)
// straight from the stored bytes: no Row, no copies of the values.
func (r RawRow) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	it := rowenc.NewIter(r.V)
	for it.Next() {
		i := it.Column()
		if i >= len(r.names) {
			n, _ := rowenc.Validate(r.V)
			return dst, widthError(r.rel, n)
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, r.names[i])
		dst = append(dst, ':')
		if it.Null() {
			dst = append(dst, "null"...)
		} else {
			dst = appendString(dst, it.Value())
		}
	}
	if err := it.Err(); err != nil {
		return dst, fmt.Errorf("decode row of %s: %w", r.rel.QualifiedName(), err)
	}
	return append(dst, '}'), nil
}

// widthError is the error about a row of n values read with rel's fewer
// columns.
func widthError(rel *wal.Relation, n int) error {
	return fmt.Errorf("decode row of %s: %w: the row has %d values, the columns it is read with are %d (%s); "+
		"it was stored before a schema change dropped a column", rel.QualifiedName(), ErrSchemaChanged, n, len(rel.Columns), columnNames(rel))
}

func columnNames(rel *wal.Relation) string {
	var b strings.Builder
	for i, c := range rel.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name)
	}
	return b.String()
}

// keyOf returns the primary key columns of a row.
func keyOf(rel *wal.Relation, r *Row) *Row {
	k := &Row{}
	for i, c := range rel.Columns {
		if c.Key && i < len(r.Values) {
			k.Names = append(k.Names, c.Name)
			k.Values = append(k.Values, r.Values[i])
		}
	}
	return k
}

// changedColumns compares two rows by column name (see Service.Diff for
// the rule): the columns of to whose value differs from the same-named
// column of from, and the columns only to has whose value is not NULL (a
// column added by a schema change reads as NULL in the older version). A
// column only from has (dropped) is not listed: it is no value to set, and
// the table event's schema change reports it. In to's column order.
func changedColumns(from, to *Row) []string {
	var out []string
	for i, n := range to.Names {
		fv, ok := from.Get(n)
		if ok && !sameValue(fv, to.Values[i]) || !ok && to.Values[i] != nil {
			out = append(out, n)
		}
	}
	return out
}

func sameValue(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
