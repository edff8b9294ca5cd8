package history

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
)

// DiffWriter renders a diff or merge event stream in one output format.
// Close flushes (and ends the SQL transaction).
type DiffWriter interface {
	Write(e *Event) error
	Close() error
}

// DiffFormats are the formats of NewDiffWriter.
var DiffFormats = []string{"table", "json", "sql"}

// NewDiffWriter returns the writer of format: "table" (for terminals; a
// marker column + added, - removed, < old and > new side of a change; a
// schema change is a "schema:" line, and dropped columns are shown after
// the newer version's columns; "(no column)" marks a side without one),
// "json" (one Event per line, see Event), "sql" (a patch, see SQLWriter).
func NewDiffWriter(format string, w io.Writer) (DiffWriter, error) {
	return NewDiffWriterOptions(format, w, SQLOptions{})
}

// NewDiffWriterOptions is NewDiffWriter with the options of a "sql" patch
// (its foreign keys, see SQLWriter).
func NewDiffWriterOptions(format string, w io.Writer, o SQLOptions) (DiffWriter, error) {
	switch format {
	case "table", "":
		return &tableDiffWriter{out: bufio.NewWriterSize(w, 64<<10)}, nil
	case "json":
		return newJSONWriter(w), nil
	case "sql":
		return NewSQLWriterOptions(w, o), nil
	}
	return nil, fmt.Errorf("%w: --format %q: want one of %s", ErrBadRequest, format, strings.Join(DiffFormats, ", "))
}

// jsonWriter writes one JSON value per line.
type jsonWriter struct {
	bw  *bufio.Writer
	buf []byte
}

func newJSONWriter(w io.Writer) *jsonWriter { return &jsonWriter{bw: bufio.NewWriterSize(w, 64<<10)} }

func (j *jsonWriter) Write(e *Event) error {
	j.buf = append(appendEvent(j.buf[:0], e), '\n')
	_, err := j.bw.Write(j.buf)
	return err
}

func (j *jsonWriter) row(r *Row) error {
	j.buf = append(appendRow(j.buf[:0], r), '\n')
	_, err := j.bw.Write(j.buf)
	return err
}

func (j *jsonWriter) Close() error { return j.bw.Flush() }

// displayValue renders a value for a terminal: NULL as NULL, and text
// with tabs, newlines or other control characters Go-quoted so one row
// stays one line.
func displayValue(v *string) string {
	if v == nil {
		return "NULL"
	}
	for _, r := range *v {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return strconv.Quote(*v)
		}
	}
	return *v
}

// tableDiffWriter aligns each table's rows in columns, flushing every
// flushRows rows so a long diff still streams. Output is buffered: the
// tabwriter writes cell by cell, a system call each on a bare stdout.
type tableDiffWriter struct {
	out    *bufio.Writer
	tw     *tabwriter.Writer
	cols   []Column
	header bool
	rows   int
}

const flushRows = 1000

func (t *tableDiffWriter) line(marker string, r *Row) {
	var b strings.Builder
	b.WriteString(marker)
	for _, c := range t.cols {
		b.WriteByte('\t')
		if r == nil {
			continue
		}
		v, ok := r.Get(c.Name)
		if ok {
			b.WriteString(displayValue(v))
		} else {
			b.WriteString("(no column)")
		}
	}
	b.WriteString("\t\n")
	io.WriteString(t.tw, b.String())
}

func (t *tableDiffWriter) Write(e *Event) error {
	switch e.Type {
	case EventTable:
		if err := t.flush(); err != nil {
			return err
		}
		if e.ToRef == "merge" {
			fmt.Fprintf(t.out, "merge into %s: %s\n", e.FromRef, e.Table)
		} else {
			fmt.Fprintf(t.out, "diff %s: %s → %s\n", e.Table, e.FromRef, e.ToRef)
		}
		if sc := e.SchemaChange; sc != nil {
			fmt.Fprintf(t.out, "schema: columns added %v, dropped %v", sc.Added, sc.Dropped)
			if len(sc.Retyped) > 0 {
				fmt.Fprintf(t.out, ", retyped %v", sc.Retyped)
			}
			fmt.Fprintln(t.out)
		}
		t.cols = e.Columns
		if sc := e.SchemaChange; sc != nil && len(sc.Dropped) > 0 {
			// Dropped columns come last, so the older side's values
			// that the newer version no longer has stay visible.
			t.cols = slices.Clone(e.Columns)
			for _, d := range sc.Dropped {
				t.cols = append(t.cols, Column{Name: d})
			}
		}
		t.tw = tabwriter.NewWriter(t.out, 1, 4, 2, ' ', 0)
		t.header = false
		return t.out.Flush() // the table's title shows at once
	case EventRow:
		t.columnHeader()
		switch e.Op {
		case OpAdded:
			t.line("+", e.To)
		case OpRemoved:
			t.line("-", e.From)
		default:
			t.line("<", e.From)
			t.line(">", e.To)
		}
		if t.rows++; t.rows%flushRows == 0 {
			if err := t.tw.Flush(); err != nil {
				return err
			}
			return t.out.Flush()
		}
	case EventConflict:
		t.columnHeader()
		// No tab after the text: a line's last cell takes no column width.
		fmt.Fprintf(t.tw, "!\tconflict (%s)\n", e.Kind)
		for _, s := range []struct {
			m string
			r *Row
		}{{"b", e.Base}, {"o", e.Ours}, {"t", e.Theirs}} {
			if s.r == nil {
				fmt.Fprintf(t.tw, "%s\t(absent)\t\n", s.m)
			} else {
				t.line(s.m, s.r)
			}
		}
	case EventStat:
		if err := t.flush(); err != nil {
			return err
		}
		fmt.Fprintf(t.out, "%d rows added, %d removed, %d changed\n", *e.RowsAdded, *e.RowsRemoved, *e.RowsChanged)
	}
	return nil
}

// columnHeader writes the column names before a table's first row, so a
// table without rows (or under --stat) prints no empty header.
func (t *tableDiffWriter) columnHeader() {
	if t.header || t.tw == nil {
		return
	}
	t.header = true
	var b strings.Builder
	b.WriteString(" ")
	for _, c := range t.cols {
		b.WriteString("\t" + c.Name)
	}
	b.WriteString("\t\n")
	io.WriteString(t.tw, b.String())
}

func (t *tableDiffWriter) flush() error {
	if t.tw != nil {
		if err := t.tw.Flush(); err != nil {
			return err
		}
		t.tw = nil
	}
	return t.out.Flush()
}

func (t *tableDiffWriter) Close() error { return t.flush() }

// RowWriter renders the rows of get and scan.
type RowWriter interface {
	Header(h ReadHeader) error
	Row(r *Row) error
	Close() error
}

// RowFormats are the formats of NewRowWriter.
var RowFormats = []string{"table", "json", "csv"}

// NewRowWriter returns the writer of format: "table" (aligned, NULL shown
// as NULL), "json" (one Row object per line), "csv" (a header line, every
// non-NULL value quoted, NULL an empty unquoted field: PostgreSQL's COPY
// CSV convention, so NULL and ” stay apart).
func NewRowWriter(format string, w io.Writer) (RowWriter, error) {
	switch format {
	case "table", "":
		bw := bufio.NewWriterSize(w, 64<<10)
		return &tableRowWriter{bw: bw, tw: tabwriter.NewWriter(bw, 1, 4, 2, ' ', 0)}, nil
	case "json":
		return &jsonRowWriter{j: newJSONWriter(w)}, nil
	case "csv":
		return &csvRowWriter{bw: bufio.NewWriter(w)}, nil
	}
	return nil, fmt.Errorf("%w: --format %q: want one of %s", ErrBadRequest, format, strings.Join(RowFormats, ", "))
}

// tableRowWriter aligns rows in columns, flushing (through a buffer, see
// tableDiffWriter) every flushRows rows.
type tableRowWriter struct {
	bw   *bufio.Writer
	tw   *tabwriter.Writer
	rows int
}

func (t *tableRowWriter) Header(h ReadHeader) error {
	var names []string
	for _, c := range h.Columns {
		names = append(names, c.Name)
	}
	_, err := io.WriteString(t.tw, strings.Join(names, "\t")+"\t\n")
	return err
}

func (t *tableRowWriter) Row(r *Row) error {
	vals := make([]string, len(r.Values))
	for i, v := range r.Values {
		vals[i] = displayValue(v)
	}
	if _, err := io.WriteString(t.tw, strings.Join(vals, "\t")+"\t\n"); err != nil {
		return err
	}
	if t.rows++; t.rows%flushRows == 0 {
		return t.Close()
	}
	return nil
}

func (t *tableRowWriter) Close() error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	return t.bw.Flush()
}

type jsonRowWriter struct{ j *jsonWriter }

func (j *jsonRowWriter) Header(ReadHeader) error { return nil }
func (j *jsonRowWriter) Row(r *Row) error        { return j.j.row(r) }
func (j *jsonRowWriter) Close() error            { return j.j.Close() }

type csvRowWriter struct{ bw *bufio.Writer }

func csvQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (c *csvRowWriter) Header(h ReadHeader) error {
	for i, col := range h.Columns {
		if i > 0 {
			c.bw.WriteByte(',')
		}
		c.bw.WriteString(csvQuote(col.Name))
	}
	_, err := c.bw.WriteString("\n")
	return err
}

func (c *csvRowWriter) Row(r *Row) error {
	for i, v := range r.Values {
		if i > 0 {
			c.bw.WriteByte(',')
		}
		if v != nil {
			c.bw.WriteString(csvQuote(*v))
		}
	}
	_, err := c.bw.WriteString("\n")
	return err
}

func (c *csvRowWriter) Close() error { return c.bw.Flush() }
