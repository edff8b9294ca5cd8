package history

import (
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/history/historytest"
)

// countingWriter counts the writes that reach it.
type countingWriter struct{ writes, bytes int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	c.bytes += len(p)
	return len(p), nil
}

// TestTableDiffWriterBuffers: the table format reaches its writer (a
// terminal, a system call per write) in blocks, not cell by cell as the
// tabwriter writes.
func TestTableDiffWriterBuffers(t *testing.T) {
	var c countingWriter
	w, err := NewDiffWriter("table", &c)
	if err != nil {
		t.Fatal(err)
	}
	cols := []Column{{Name: "id", Type: "int8", Key: true}, {Name: "v", Type: "text"}, {Name: "n", Type: "numeric"}}
	if err := w.Write(&Event{Type: EventTable, Table: "public.t", Columns: cols, FromRef: "a", ToRef: "b"}); err != nil {
		t.Fatal(err)
	}
	const rows = 5000
	for i := range rows {
		id := strconv.Itoa(i)
		r := &Row{Names: []string{"id", "v", "n"}, Values: []*string{historytest.S(id), historytest.S("value " + id), nil}}
		if err := w.Write(&Event{Type: EventRow, Table: "public.t", Op: OpAdded, To: r}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if c.bytes < rows*10 || c.writes > 60 {
		t.Fatalf("%d rows reached the writer in %d writes (%d bytes)", rows, c.writes, c.bytes)
	}
	t.Logf("%d rows: %d writes, %d bytes", rows, c.writes, c.bytes)
}

// TestTableRowWriterBuffers: scan's table format, likewise.
func TestTableRowWriterBuffers(t *testing.T) {
	var c countingWriter
	w, err := NewRowWriter("table", &c)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Header(ReadHeader{Columns: []Column{{Name: "id"}, {Name: "v"}}}); err != nil {
		t.Fatal(err)
	}
	const rows = 5000
	for i := range rows {
		id := strconv.Itoa(i)
		if err := w.Row(&Row{Names: []string{"id", "v"}, Values: []*string{historytest.S(id), nil}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if c.bytes < rows*5 || c.writes > 60 {
		t.Fatalf("%d rows reached the writer in %d writes (%d bytes)", rows, c.writes, c.bytes)
	}
}
