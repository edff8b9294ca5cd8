package history

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
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
	err    error
	outErr error // from writing the first lines
	// started: BEGIN is written.
	started bool

	comments strings.Builder
	tables   []string // canonical names, in the order first seen
	spools   map[string]*[phases]spool
	held     int      // bytes held in memory by the spools
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

// ForeignKey says that rows of Table reference rows of References through
// Columns (of Table) and RefColumns (of References, the same number, in
// the same order). Table names are canonical, as the mirror names them.
type ForeignKey struct {
	Table      string   `json:"table"`
	Columns    []string `json:"columns"`
	References string   `json:"references"`
	RefColumns []string `json:"ref_columns"`
}

// tuple is the text of a row's values in cols, prefixed by the foreign
// key's index, or "" when one is NULL (a NULL references nothing).
func tuple(fk int, cols []string, r *Row) string {
	if r == nil {
		return ""
	}
	var b []byte
	b = binary.AppendUvarint(b, uint64(fk))
	for _, c := range cols {
		v, ok := r.Get(c)
		if !ok || v == nil {
			return ""
		}
		b = binary.AppendUvarint(b, uint64(len(*v)))
		b = append(b, *v...)
	}
	return string(b)
}

// The phases of a patch, in the order their statements are written for a
// table (deletes of every table come first, see SQLWriter).
const (
	phaseDelete = iota
	phaseUpdate
	phaseInsert
	phaseReparent // updates of a self-referencing table's reference columns
	phases
)

// spool holds one table's statements of one phase: extents in the
// temporary file, then what is still in memory. Deletes, and the inserts
// of a table that references itself, are held as records (see record).
type spool struct {
	extents [][2]int64 // offset, length
	buf     bytes.Buffer
}

// NewSQLWriter returns a patch writer on w with default options (no
// foreign keys known: tables in the order they come).
func NewSQLWriter(w io.Writer) *SQLWriter { return NewSQLWriterOptions(w, SQLOptions{}) }

// NewSQLWriterOptions returns a patch writer on w.
func NewSQLWriterOptions(w io.Writer, o SQLOptions) *SQLWriter {
	if o.MemoryBytes <= 0 {
		o.MemoryBytes = 16 << 20
	}
	return &SQLWriter{out: w, opts: o, spools: map[string]*[phases]spool{}, moved: map[string]bool{}}
}

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
		if _, ok := w.spools[e.Table]; !ok {
			w.spools[e.Table] = &[phases]spool{}
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
	sp := &w.spools[e.Table][phase]
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

// The sections of a record's tuples (see record).
const (
	secReferenced = iota // by which rows of other tables reference it
	secReferences        // which rows of other tables it references
	secSelfOwn           // by which rows of its own table reference it
	secSelfRefs          // which rows of its own table it references
	sections
)

// record is a held statement with the foreign-key tuples (see tuple) of
// its row, by section. Deletes are held as records (their order depends
// on the updates), and so are the inserts of a table that references
// itself (ordered parents first at Close).
type record struct {
	keys [sections][]string
	stmt []byte
}

// record encodes the record of r's statement in table: per section a
// uvarint count and the tuples, each with its uvarint length; then the
// statement with its uvarint length.
func (w *SQLWriter) record(table string, r *Row, stmt string) []byte {
	b := w.meta[:0]
	for sec := range sections {
		var keys []string
		for i, fk := range w.opts.ForeignKeys {
			self := fk.Table == fk.References
			var t string
			switch {
			case (sec == secReferenced && !self || sec == secSelfOwn && self) && fk.References == table:
				t = tuple(i, fk.RefColumns, r)
			case (sec == secReferences && !self || sec == secSelfRefs && self) && fk.Table == table:
				t = tuple(i, fk.Columns, r)
			}
			if t != "" {
				keys = append(keys, t)
			}
		}
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, k := range keys {
			b = appendBytes(b, k)
		}
	}
	b = appendBytes(b, stmt)
	w.meta = b
	return b
}

// reparents reports whether e updates a column by which its table
// references itself.
func (w *SQLWriter) reparents(e *Event) bool {
	return slices.ContainsFunc(w.opts.ForeignKeys, func(fk ForeignKey) bool {
		return fk.Table == e.Table && fk.References == e.Table &&
			slices.ContainsFunc(fk.Columns, func(c string) bool { return slices.Contains(e.Changed, c) })
	})
}

// selfRef reports whether table references itself.
func (w *SQLWriter) selfRef(table string) bool {
	return slices.ContainsFunc(w.opts.ForeignKeys, func(fk ForeignKey) bool { return fk.Table == table && fk.References == table })
}

// spill appends every spool's memory to the temporary file.
func (w *SQLWriter) spill() error {
	if w.tmp == nil {
		f, err := os.CreateTemp(w.opts.TempDir, "sidecar-patch-*")
		if err != nil {
			return fmt.Errorf("sql patch: hold statements: %w", err)
		}
		// Unlinked at once: nothing is left behind, whatever happens.
		os.Remove(f.Name())
		w.tmp = f
	}
	for _, t := range w.tables {
		for i := range w.spools[t] {
			sp := &w.spools[t][i]
			if sp.buf.Len() == 0 {
				continue
			}
			n, err := w.tmp.WriteAt(sp.buf.Bytes(), w.tmpSize)
			if err != nil {
				return fmt.Errorf("sql patch: hold statements: %w", err)
			}
			sp.extents = append(sp.extents, [2]int64{w.tmpSize, int64(n)})
			w.tmpSize += int64(n)
			sp.buf.Reset()
		}
	}
	w.held = 0
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
	reader := func(t string, phase int) io.Reader {
		sp := &w.spools[t][phase]
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

// appendBytes appends s with its uvarint length.
func appendBytes(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// eachRecord reads a spool of records.
func eachRecord(r io.Reader, fn func(*record) error) error {
	br := bufio.NewReader(r)
	next := func() (string, error) {
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return string(b), err
	}
	for {
		var rec record
		for sec := range sections {
			n, err := binary.ReadUvarint(br)
			if err == io.EOF && sec == 0 {
				return nil
			}
			if err != nil {
				return fmt.Errorf("held record: %w", err)
			}
			for range n {
				k, err := next()
				if err != nil {
					return fmt.Errorf("held record: %w", err)
				}
				rec.keys[sec] = append(rec.keys[sec], k)
			}
		}
		stmt, err := next()
		if err != nil {
			return fmt.Errorf("held record: %w", err)
		}
		rec.stmt = []byte(stmt)
		if err := fn(&rec); err != nil {
			return err
		}
	}
}

// selfOrder orders the records of a table that references itself so each
// row comes after the rows it references (childrenFirst: before them),
// keeping the held (key) order otherwise. Rows in a reference cycle come
// last, in key order: only a DEFERRABLE constraint lets them apply.
func selfOrder(recs []*record, childrenFirst bool) []int {
	owner := map[string]int{}
	for i, r := range recs {
		for _, k := range r.keys[secSelfOwn] {
			owner[k] = i
		}
	}
	// after[i] lists the records that must come after record i.
	after := make([][]int, len(recs))
	waits := make([]int, len(recs))
	for i, r := range recs {
		for _, k := range r.keys[secSelfRefs] {
			p, ok := owner[k]
			if !ok || p == i {
				continue
			}
			if childrenFirst {
				after[i] = append(after[i], p)
				waits[p]++
			} else {
				after[p] = append(after[p], i)
				waits[i]++
			}
		}
	}
	ready := &intHeap{}
	for i, n := range waits {
		if n == 0 {
			heap.Push(ready, i)
		}
	}
	out := make([]int, 0, len(recs))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		out = append(out, i)
		for _, j := range after[i] {
			if waits[j]--; waits[j] == 0 {
				heap.Push(ready, j)
			}
		}
	}
	for i, n := range waits {
		if n > 0 {
			out = append(out, i)
		}
	}
	return out
}

// intHeap is a min-heap of record indexes: among the rows free to go, the
// first in key order goes first.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// dependencyOrder orders tables so that a table comes after every table
// it references (ties and cycles keep the order given), and returns a
// comment naming the tables whose references form a cycle, where no order
// can satisfy non-deferrable constraints.
func dependencyOrder(tables []string, fks []ForeignKey) ([]string, string) {
	in := map[string]bool{}
	for _, t := range tables {
		in[t] = true
	}
	refs := map[string][]string{} // table -> tables it references
	for _, fk := range fks {
		if in[fk.Table] && in[fk.References] && fk.Table != fk.References {
			refs[fk.Table] = append(refs[fk.Table], fk.References)
		}
	}
	const (
		unseen = iota
		visiting
		done
	)
	state := map[string]int{}
	var out, cyclic []string
	var visit func(t string)
	visit = func(t string) {
		switch state[t] {
		case visiting:
			cyclic = append(cyclic, t)
			return
		case done:
			return
		}
		state[t] = visiting
		for _, r := range refs[t] {
			visit(r)
		}
		state[t] = done
		out = append(out, t)
	}
	for _, t := range tables {
		visit(t)
	}
	if len(cyclic) == 0 {
		return out, ""
	}
	slices.Sort(cyclic)
	names := make([]string, 0, len(cyclic))
	for _, t := range slices.Compact(cyclic) {
		names = append(names, commentSafe(t))
	}
	return out, "-- foreign keys form a cycle through " + strings.Join(names, ", ") +
		": statements across them apply only if those constraints are DEFERRABLE\n"
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
