// The SQL patch writer: events in, INSERT/UPDATE/DELETE statements out,
// held until Close writes them in their order.

package history

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/rowenc"
)

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
// Statement order is chosen so that constraints hold after every
// statement, from the foreign keys between the patched tables
// (SQLOptions.ForeignKeys): (1) DELETEs, from referencing tables before
// the tables they reference; (2) table by table, referenced tables first,
// the UPDATEs and then the INSERTs; (3) the DELETEs of rows that a row
// updated in (2) referenced before its update (and of the rows those
// reference, transitively), again referencing tables first. So a unique
// value that moves from a deleted or updated row to a new row, a revert
// that inserts parent rows back before their children, a child row
// updated to point at a new parent row, and a child row moved away from a
// parent row that is deleted all apply. In a table that references
// itself (a tree), rows are inserted parents first and deleted children
// first, and updates that change the reference (re-parenting) go after
// the table's inserts. The patch also runs SET CONSTRAINTS ALL DEFERRED,
// so DEFERRABLE constraints (cycles) are checked at COMMIT. Otherwise,
// within a table and phase, rows are in key order. No order satisfies every case: a unique value swapped between two
// updated rows, or freed by a row deleted in (3), needs a DEFERRABLE
// constraint. BEGIN and SET CONSTRAINTS are written with the first event;
// the statements are held (in memory up to SQLOptions.MemoryBytes, then in
// an unlinked temporary file) until Close writes them, as the order needs
// the whole diff.
//
// A patch holds no DDL. When a table's columns differ between the two
// versions (the table event's SchemaChange), the patch is written for the
// newer version's columns and says so in a comment at its top: the DBA
// runs the ALTER TABLE first, then the patch. Columns only the older
// version had are never named; an added column is set only where its
// value is not NULL (see Service.Diff).
type SQLWriter struct {
	out    io.Writer
	opts   SQLOptions
	table  string // the current table's canonical name
	qtable string // … quoted
	cols   []Column
	allKey bool
	// textCompared: a statement matches a value by its output text
	// (where), so the patch sets the mirror's output settings.
	textCompared bool
	err          error
	outErr       error // from writing the first lines
	// started: BEGIN is written.
	started bool

	comments strings.Builder
	tables   []string // canonical names, in the order first seen
	buffers  map[string]*[phases]phaseBuffer
	held     int      // bytes held in memory by the buffers
	tmp      *os.File // statements beyond opts.MemoryBytes
	tmpSize  int64

	// moved holds the referenced tuples (see tuple) that an updated row
	// referenced before its update: the deletes of rows holding them wait
	// for the updates.
	moved map[string]bool
	meta  []byte // scratch for a delete record's tuples
}

// SQLOptions tune a patch.
type SQLOptions struct {
	// ForeignKeys between the tables of the patch order its statements
	// (see SQLWriter); ForeignKeys reads them from PostgreSQL.
	ForeignKeys []ForeignKey
	// MemoryBytes bounds the statements held in memory before they are
	// written to a temporary file (default 16 MiB).
	MemoryBytes int
	// TempDir is where that file is made (default os.TempDir()).
	TempDir string
}

// NewSQLWriter returns a patch writer on w with default options (no
// foreign keys known: tables in the order they come).
func NewSQLWriter(w io.Writer) *SQLWriter { return NewSQLWriterOptions(w, SQLOptions{}) }

// NewSQLWriterOptions returns a patch writer on w.
func NewSQLWriterOptions(w io.Writer, o SQLOptions) *SQLWriter {
	if o.MemoryBytes <= 0 {
		o.MemoryBytes = 16 << 20
	}
	return &SQLWriter{out: w, opts: o, buffers: map[string]*[phases]phaseBuffer{}, moved: map[string]bool{}}
}

// noEquality lists built-in types without an equality operator.
var noEquality = map[string]bool{
	"json": true, "xml": true, "point": true, "line": true, "lseg": true,
	"box": true, "path": true, "polygon": true, "circle": true,
	"_json": true, "_xml": true, "_point": true,
}

// begin writes the patch's first lines at once (a reader sees that the
// patch has started); its statements come when it is complete.
func (w *SQLWriter) begin() {
	if !w.started {
		w.started = true
		_, w.outErr = io.WriteString(w.out, "BEGIN;\nSET CONSTRAINTS ALL DEFERRED;\n")
	}
}

// Write takes one event.
func (w *SQLWriter) Write(e *Event) error {
	if w.err != nil {
		return w.err
	}
	w.begin()
	switch e.Type {
	case EventTable:
		w.table, w.qtable, w.cols, w.allKey = e.Table, QuoteTable(e.Table), e.Columns, true
		for _, c := range e.Columns {
			w.allKey = w.allKey && c.Key
		}
		if _, ok := w.buffers[e.Table]; !ok {
			w.buffers[e.Table] = &[phases]phaseBuffer{}
			w.tables = append(w.tables, e.Table)
		}
		if sc := e.SchemaChange; sc != nil {
			w.comments.WriteString(schemaComment(e.Table, sc))
		}
		return nil
	case EventRow:
	default:
		return nil
	}
	if w.table != e.Table {
		w.err = fmt.Errorf("sql patch: a row of %s before its table event", e.Table)
		return w.err
	}
	var stmt string
	var err error
	phase := phaseUpdate
	switch e.Op {
	case OpAdded:
		stmt, err = w.insert(e.To)
		phase = phaseInsert
	case OpRemoved:
		stmt, err = w.delete(e.From)
		phase = phaseDelete
	default:
		stmt, err = w.update(e)
	}
	if err != nil {
		w.err = fmt.Errorf("sql patch for %s key %s: %w", e.Table, keyText(e.Key), err)
		return w.err
	}
	if phase == phaseUpdate && w.reparents(e) {
		// After the inserts: the new parent may be one of them.
		phase = phaseReparent
	}
	sp := &w.buffers[e.Table][phase]
	n := sp.buf.Len()
	switch {
	case phase == phaseDelete:
		sp.buf.Write(w.record(e.Table, e.From, stmt))
	case phase == phaseInsert && w.selfRef(e.Table):
		sp.buf.Write(w.record(e.Table, e.To, stmt))
	case phase == phaseUpdate || phase == phaseReparent:
		for i, fk := range w.opts.ForeignKeys {
			if fk.Table == e.Table && slices.ContainsFunc(fk.Columns, func(c string) bool { return slices.Contains(e.Changed, c) }) {
				if t := tuple(i, fk.Columns, e.From); t != "" {
					w.moved[t] = true
				}
			}
		}
		sp.buf.WriteString(stmt)
	default:
		sp.buf.WriteString(stmt)
	}
	w.held += sp.buf.Len() - n
	if w.held > w.opts.MemoryBytes {
		if err := w.spill(); err != nil {
			w.err = err
			return err
		}
	}
	return nil
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
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s);\n", w.qtable, strings.Join(names, ", "), strings.Join(vals, ", ")), nil
}

// where renders the key condition of r. In a table whose every column
// is a key (REPLICA IDENTITY FULL: a multiset of whole rows), a value
// whose type's "=" is coarser than its text (1.5 = 1.50, 0 = -0,
// '1 day' = '24 hours', citext, …) or that has no "=" (json) is
// compared by its output text, which the mirror holds exactly, so that
// the statement matches the row's occurrences and no other row; Close
// then sets the output settings that text was printed under.
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
		if noEquality[c.Type] || w.allKey && !exactEquality[c.Type] {
			lit, err := Literal(v, "text")
			if err != nil {
				return "", fmt.Errorf("column %s: %w", c.Name, err)
			}
			// format('%s', …) calls the type's output function (a cast
			// to text need not: boolean, char(n), inet); NOT NULL, since
			// format renders NULL as ''.
			terms = append(terms, fmt.Sprintf("(%s IS NOT NULL AND pg_catalog.format('%%s', %s) = %s)", id, id, lit))
			w.textCompared = true
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

// exactEquality lists built-in types whose "=" holds exactly when the
// output texts are equal (under the mirror's session settings), so a
// whole-row match may use "=" (and an index).
var exactEquality = map[string]bool{
	"int2": true, "int4": true, "int8": true, "oid": true, "bool": true,
	"text": true, "varchar": true, "bpchar": true, "name": true, "char": true,
	"uuid": true, "bytea": true, "date": true, "time": true,
	"timestamp": true, "timestamptz": true,
}

// textSettings are the output settings of the mirror's texts
// (rowenc.SessionParams, read from there so the two cannot drift), set
// for the rest of the patch's transaction when a statement compares
// values by their text. client_encoding is left to whoever runs the
// patch: it says how their client sends the patch's bytes.
var textSettings = func() string {
	params := rowenc.SessionParams()
	delete(params, "client_encoding")
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(params)) {
		fmt.Fprintf(&b, "SET LOCAL %s = '%s'; ", name, params[name])
	}
	return strings.TrimSuffix(b.String(), " ") + "\n"
}()

func (w *SQLWriter) delete(r *Row) (string, error) {
	cond, err := w.where(r)
	if err != nil {
		return "", err
	}
	if w.allKey {
		return fmt.Sprintf("DELETE FROM %s WHERE ctid = (SELECT ctid FROM %s WHERE %s LIMIT 1);\n", w.qtable, w.qtable, cond), nil
	}
	return fmt.Sprintf("DELETE FROM %s WHERE %s;\n", w.qtable, cond), nil
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
	return fmt.Sprintf("UPDATE %s SET %s WHERE %s;\n", w.qtable, strings.Join(sets, ", "), cond), nil
}

// Fail records that the stream feeding the writer failed, so Close ends
// the patch with ROLLBACK: a patch cut short never commits half of it.
func (w *SQLWriter) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// Close writes the rest of the patch: the schema comments, the statements
// in dependency order, COMMIT. After an error (a Write's, or Fail's) it
// writes ROLLBACK instead, and no statement, so a patch cut short never
// commits half its changes.
func (w *SQLWriter) Close() error {
	if w.tmp != nil {
		defer w.tmp.Close()
	}
	w.begin()
	bw := bufio.NewWriterSize(w.out, 64<<10)
	if w.err != nil {
		bw.WriteString("ROLLBACK;\n")
		bw.Flush()
		return w.err
	}
	if w.outErr != nil {
		return fmt.Errorf("sql patch: %w", w.outErr)
	}
	parents, note := dependencyOrder(w.tables, w.opts.ForeignKeys)
	bw.WriteString(note)
	bw.WriteString(w.comments.String())
	if w.textCompared {
		bw.WriteString("-- rows of tables without a key are matched by their values' text, printed under these settings:\n")
		bw.WriteString(textSettings)
	}
	reader := func(t string, phase int) io.Reader {
		sp := &w.buffers[t][phase]
		rs := make([]io.Reader, 0, len(sp.extents)+1)
		for _, x := range sp.extents {
			rs = append(rs, io.NewSectionReader(w.tmp, x[0], x[1]))
		}
		return io.MultiReader(append(rs, bytes.NewReader(sp.buf.Bytes()))...)
	}
	emit := func(t string, phase int) error {
		if _, err := io.Copy(bw, reader(t, phase)); err != nil {
			return fmt.Errorf("sql patch: read held statements of %s: %w", t, err)
		}
		return nil
	}
	// records calls fn with the records of a table's phase: in the order
	// held, or, for a table that references itself, parents first
	// (inserts) or children first (deletes).
	records := func(t string, phase int, fn func(*record) error) error {
		if !w.selfRef(t) {
			return eachRecord(reader(t, phase), fn)
		}
		var all []*record
		if err := eachRecord(reader(t, phase), func(r *record) error {
			all = append(all, r)
			return nil
		}); err != nil {
			return err
		}
		for _, i := range selfOrder(all, phase == phaseDelete) {
			if err := fn(all[i]); err != nil {
				return err
			}
		}
		return nil
	}
	// Deletes, referencing tables first: a row whose referenced tuples an
	// update moved away from waits (late), and so do the rows it
	// references (they are deleted after it).
	late := map[string][]bool{}
	for _, t := range slices.Backward(parents) {
		err := records(t, phaseDelete, func(r *record) error {
			wait := slices.ContainsFunc(r.keys[secReferenced], func(k string) bool { return w.moved[k] }) ||
				slices.ContainsFunc(r.keys[secSelfOwn], func(k string) bool { return w.moved[k] })
			late[t] = append(late[t], wait)
			if !wait {
				_, err := bw.Write(r.stmt)
				return err
			}
			for _, k := range r.keys[secReferences] {
				w.moved[k] = true
			}
			for _, k := range r.keys[secSelfRefs] {
				w.moved[k] = true
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("sql patch: read held statements of %s: %w", t, err)
		}
	}
	for _, t := range parents {
		if err := emit(t, phaseUpdate); err != nil {
			return err
		}
		if !w.selfRef(t) {
			if err := emit(t, phaseInsert); err != nil {
				return err
			}
			continue
		}
		err := records(t, phaseInsert, func(r *record) error {
			_, err := bw.Write(r.stmt)
			return err
		})
		if err != nil {
			return fmt.Errorf("sql patch: read held statements of %s: %w", t, err)
		}
		if err := emit(t, phaseReparent); err != nil {
			return err
		}
	}
	for _, t := range slices.Backward(parents) {
		if !slices.Contains(late[t], true) {
			continue
		}
		i := 0
		err := records(t, phaseDelete, func(r *record) error {
			i++
			if !late[t][i-1] {
				return nil
			}
			_, err := bw.Write(r.stmt)
			return err
		})
		if err != nil {
			return fmt.Errorf("sql patch: read held statements of %s: %w", t, err)
		}
	}
	bw.WriteString("COMMIT;\n")
	return bw.Flush()
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
