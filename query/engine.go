package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/snapshot"
	"github.com/sidecar-dev/sidecar/wal"
)

// Heads hands out snapshots of the in-memory HEAD (head.Model): a table's
// heap exactly as it is at version at, or an error (head.ErrNotAtVersion)
// when the model does not hold that version.
type Heads interface {
	SnapshotAt(table string, at wal.LSN) (*heap.Snapshot, *wal.Relation, error)
}

// Versions is what an Engine reads the trees through (history.Service):
// row scans at any version and the resolution of refs.
type Versions interface {
	Scanner
	Resolve(ctx context.Context, ref string) (refs.Point, error)
}

// Engine answers requests: at HEAD from the in-memory model when it holds
// the version HEAD resolves to (the heap's column segments, no row
// decoded), otherwise, and for every --as-of, from the Prolly tree
// (RunTree). Either way the answer names the version it read.
type Engine struct {
	Tree Versions
	// Heads is the in-memory HEAD; nil reads every version from the tree.
	Heads Heads
	// Wait bounds how long a HEAD query waits for the model to catch up
	// with the version HEAD resolves to (it trails the trees by at most
	// one commit group) before it reads the tree instead; 0 is 2 s.
	Wait time.Duration
	// Options tune the scan.
	Options Options
}

// Read names where an answer was read: ReadHead (the in-memory model's
// heap) or ReadTree (the Prolly tree, row at a time).
const (
	ReadHead = "head"
	ReadTree = "tree"
)

// Run answers req. Bad requests fail with ErrBadRequest before any row is
// read.
func (e *Engine) Run(ctx context.Context, req Request) (*Result, history.ReadHeader, error) {
	if e.Heads != nil && isHead(req.AsOf) {
		res, hdr, ok, err := e.runHead(ctx, req)
		if ok || err != nil {
			return res, hdr, err
		}
	}
	res, hdr, err := RunTree(ctx, e.Tree, req)
	if res != nil {
		res.Read = ReadTree
	}
	return res, hdr, err
}

func isHead(ref string) bool { return ref == "" || strings.EqualFold(ref, "HEAD") }

// snapshotter is a Versions that opens snapshots of the mirror
// (history.Service).
type snapshotter interface {
	Snapshots() *snapshot.Store
}

// runHead opens a snapshot at HEAD (snapshot/: HEAD resolved once, the
// model waited for up to Wait) and, when the model holds the table at
// that version, runs the plan over its pinned heap pages, narrowed to
// WHERE's primary-key range through the model's index; ok=false (no
// error) means the model could not answer in time: read the tree.
func (e *Engine) runHead(ctx context.Context, req Request) (*Result, history.ReadHeader, bool, error) {
	sv, ok := e.Tree.(snapshotter)
	h, hok := e.Heads.(snapshot.Head)
	if !ok || !hok {
		return nil, history.ReadHeader{}, false, nil
	}
	st := *sv.Snapshots()
	st.Head, st.Wait = h, e.Wait
	if st.Wait <= 0 {
		st.Wait = 2 * time.Second
	}
	sn, err := st.Open(ctx, "HEAD")
	if err != nil {
		return nil, history.ReadHeader{}, false, nil // the tree path reports it
	}
	defer sn.Release()
	t, err := sn.Table(ctx, req.Table)
	if err != nil || !t.FromHead() {
		if cerr := ctx.Err(); cerr != nil {
			return nil, history.ReadHeader{}, true, cerr
		}
		return nil, history.ReadHeader{}, false, nil // the tree reads (and reports) it
	}
	hdr := history.ReadHeader{Table: t.Name, LSN: sn.LSN().String(), Ref: "HEAD"}
	for _, c := range t.Rel.Columns {
		hdr.Columns = append(hdr.Columns, history.Column{Name: c.Name, Type: c.TypeName, Key: c.Key})
	}
	schema := SchemaOf(t.Rel)
	oids, err := opaqueRefusal(req, schema, relColumns(t.Rel))
	if err != nil {
		return nil, hdr, true, err // opaque.go
	}
	plan, err := Bind(req, schema)
	if err == nil {
		err = plan.typeColumns(oids) // typedtext.go
	}
	if err != nil {
		return nil, hdr, true, err
	}
	from, to, ok := headKeyBounds(plan, t.Rel)
	if !ok {
		from, to = nil, nil
	}
	pages, _, err := t.Pages(from, to)
	if err != nil {
		return nil, hdr, true, fmt.Errorf("query %s: %w", t.Name, err)
	}
	opt := e.Options
	opt.Only = pages.Only
	res, err := Run(ctx, plan, FromSnapshot(pages.Heap), opt)
	if err != nil {
		return nil, hdr, true, fmt.Errorf("query %s: %w", t.Name, err)
	}
	res.Read = ReadHead
	return res, hdr, true, nil
}

// headKeyBounds turns WHERE's bounds on the primary key's columns into
// index key bounds [from, to) (nil: unbounded); see KeyBounds.
func headKeyBounds(p *Plan, rel *wal.Relation) (from, to []byte, ok bool) {
	ks := rel.KeyColumns()
	if rel.Identity == wal.IdentityFull || len(ks) == 0 {
		return nil, nil, false
	}
	kinds := make([]rowenc.KeyKind, len(ks))
	for i, c := range ks {
		kinds[i] = rowenc.KindForOID(rel.Columns[c].TypeOID)
	}
	return p.KeyBounds(ks, kinds)
}

// prefixEnd is the least byte string above every string with prefix b
// (nil when there is none: b is all 0xFF).
func prefixEnd(b []byte) []byte {
	e := append([]byte(nil), b...)
	for i := len(e) - 1; i >= 0; i-- {
		if e[i] < 0xFF {
			e[i]++
			return e[:i+1]
		}
	}
	return nil
}

// SchemaOf is the heap schema of a relation (the kinds head/ stores it
// with).
func SchemaOf(rel *wal.Relation) heap.Schema {
	var s heap.Schema
	for _, c := range rel.Columns {
		s.Columns = append(s.Columns, heap.Column{Name: c.Name, Kind: heap.KindForOID(c.TypeOID)})
	}
	return s
}

// Poster is the part of a daemon client RunRemote needs
// (history.Transport has it).
type Poster interface {
	PostStreamJSON(ctx context.Context, path string, body any, fn func(json.RawMessage) error) error
}

// RunRemote sends req to a running daemon (POST /api/query) and returns
// its answer: the header line, then the rows as history rows (output
// texts keyed by output column name).
func RunRemote(ctx context.Context, t Poster, req Request) (Header, []*history.Row, error) {
	var hdr Header
	var rows []*history.Row
	first := true
	err := t.PostStreamJSON(ctx, "/api/query", req, func(m json.RawMessage) error {
		if first {
			first = false
			if err := json.Unmarshal(m, &hdr); err != nil {
				return fmt.Errorf("query header: %w", err)
			}
			return nil
		}
		var r history.Row
		if err := json.Unmarshal(m, &r); err != nil {
			return fmt.Errorf("query row: %w", err)
		}
		rows = append(rows, &r)
		return nil
	})
	if err == nil && first {
		err = errors.New("query: the daemon sent no header")
	}
	return hdr, rows, err
}
