package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/internal/pgident"
	"github.com/sidecar-dev/sidecar/refs"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
)

// Heads hands out snapshots of the in-memory HEAD (head.Model): a table's
// heap exactly as it is at version at, or an error (head.ErrNotAtVersion)
// when the model does not hold that version.
type Heads interface {
	SnapshotAt(table string, at replication.LSN) (*heap.Snapshot, *replication.Relation, error)
}

// RangeHeads is Heads that can also give the row ids of a key range with
// the snapshot (head.Model): a primary-key range then touches only its
// rows' pages.
type RangeHeads interface {
	Heads
	SnapshotRange(table string, at replication.LSN, from, to []byte, max int) (*heap.Snapshot, *replication.Relation, []heap.RowID, bool, error)
}

// maxRangeRows bounds the row ids a key range collects under the index's
// read lock; a wider range scans every page (zone maps still skip).
const maxRangeRows = 1 << 18

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

// runHead resolves HEAD and scans the model's snapshot at that version;
// ok=false (no error) means the model could not answer in time: read the
// tree.
func (e *Engine) runHead(ctx context.Context, req Request) (*Result, history.ReadHeader, bool, error) {
	name := req.Table
	if tn, err := pgident.ParseTable(req.Table); err == nil {
		name = tn.String()
	}
	if lt, ok := e.Heads.(interface{ Tables() []string }); ok && !slices.Contains(lt.Tables(), name) {
		return nil, history.ReadHeader{}, false, nil // not held (unknown, or not loaded): no wait
	}
	wait := e.Wait
	if wait <= 0 {
		wait = 2 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		p, err := e.Tree.Resolve(ctx, "HEAD")
		if err != nil || p.Branch != nil {
			return nil, history.ReadHeader{}, false, nil // the tree path reports it
		}
		snap, rel, err := e.Heads.SnapshotAt(name, p.LSN())
		if err == nil {
			defer func() { snap.Release() }()
			hdr := history.ReadHeader{Table: name, LSN: p.LSN().String(), Ref: "HEAD"}
			for _, c := range rel.Columns {
				hdr.Columns = append(hdr.Columns, history.Column{Name: c.Name, Type: c.TypeName, Key: c.Key})
			}
			plan, err := Bind(req, SchemaOf(rel))
			if err != nil {
				return nil, hdr, true, err
			}
			opt := e.Options
			if rh, ok := e.Heads.(RangeHeads); ok {
				if from, to, ok := headKeyBounds(plan, rel); ok {
					s2, _, ids, complete, err := rh.SnapshotRange(name, p.LSN(), from, to, maxRangeRows)
					if err == nil {
						snap.Release()
						snap = s2 // released by the defer above
						if complete {
							opt.Only = &ids
						}
					}
				}
			}
			res, err := Run(ctx, plan, FromSnapshot(snap), opt)
			if err != nil {
				return nil, hdr, true, fmt.Errorf("query %s: %w", name, err)
			}
			res.Read = ReadHead
			return res, hdr, true, nil
		}
		if time.Now().After(deadline) {
			return nil, history.ReadHeader{}, false, nil
		}
		select {
		case <-ctx.Done():
			return nil, history.ReadHeader{}, true, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// headKeyBounds turns WHERE's bounds on the primary key's columns into
// index key bounds [from, to) (nil: unbounded); see KeyBounds.
func headKeyBounds(p *Plan, rel *replication.Relation) (from, to []byte, ok bool) {
	ks := rel.KeyColumns()
	if rel.Identity == replication.IdentityFull || len(ks) == 0 {
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
func SchemaOf(rel *replication.Relation) heap.Schema {
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
