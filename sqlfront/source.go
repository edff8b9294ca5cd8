package sqlfront

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/heap"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/query"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// Column is one column of a table as the front end describes it to
// clients: the type OID and typmod come from the relation the mirror
// stores (pgoutput's), so RowDescription carries PostgreSQL's own values.
type Column struct {
	Name     string
	TypeOID  uint32
	TypeMod  int32
	TypeName string
	Key      bool
	// Collation is the column's collation as the copy read it (zero when
	// unknown or not collatable); collate.go refuses to order under one
	// sidecar does not compare in.
	Collation wal.Collation
	// Base is a domain column's base type when the facts read it and the
	// type catalog knows it (0 otherwise): the flat evaluator reads its
	// values as that type's (domaincols.go).
	Base uint32
}

// Table is a followed table at one version.
type Table struct {
	Name    string // canonical (internal/pgident): public.accounts
	Schema  string
	Rel     string
	OID     uint32 // pg_class.oid on the source
	Columns []Column
	KeyCols []int // indexes into Columns of the primary key, in key order
	// Facts are the catalog facts read with the relation (nil when none
	// were): the database's default collation, inheritance descendants.
	Facts *wal.Facts
	// codec encodes the primary key (nil for keyless tables and tables
	// described by other sources): reads of the in-memory HEAD need it.
	codec *rowenc.KeyCodec
	// part is set for a partitioned root, read as its leaves (partroot.go).
	part *wal.PartRoot
	// assumed stands for Facts.ColumnTypes when the relation's record
	// lacks them (written before mirror section 't', an AS OF version
	// before the next resync): the facts of the same column types at
	// HEAD (domaincols.go: assumeColumnTypes).
	assumed []wal.ColumnType
}

// Version is one resolved, committed version. Reads made with the same
// Version see the same rows, whatever is applied meanwhile.
type Version struct {
	Ref string // as the user wrote it
	LSN string // end LSN of the commit read (for a branch: the commit it came from)
	pin string // the ref that names exactly this version (LSN, or the branch)
	// at is the commit's LSN when the version is a commit of the mirror
	// (not a branch): the in-memory HEAD can serve it when it holds it.
	at wal.LSN
}

// ErrUnknownTable is wrapped by Source errors about a table the mirror
// does not follow.
var ErrUnknownTable = history.ErrUnknownTable

// Source is what the front end plans onto: the committed versions of the
// followed tables. It can point-get by primary key, range-scan by a range
// of the first key column and full-scan, returning canonical rows (the
// text PostgreSQL printed for each value, nil for NULL) in table column
// order. Today it is implemented over the Prolly trees through history/
// (the code paths of `sidecar get/scan`); the query engine of issue 14
// will replace the implementation, not the interface.
type Source interface {
	// Tables lists the followed tables with their current columns.
	Tables() []Table
	// Resolve resolves a sidecar ref (HEAD, HEAD~N, an LSN, @time, tag,
	// branch). The error carries the resolver's message.
	Resolve(ctx context.Context, ref string) (Version, error)
	// Table describes table (any name form config accepts) at v.
	Table(ctx context.Context, v Version, name string) (Table, error)
	// Get returns the row under the primary key values key.
	Get(ctx context.Context, v Version, t *Table, key []string) (row []*string, ok bool, err error)
	// Scan calls fn for each row in key order with a first key column
	// value from from (inclusive, "" unbounded) to to (exclusive, ""
	// unbounded). fn returning errStopScan ends the scan without error.
	Scan(ctx context.Context, v Version, t *Table, from, to string, fn func(row []*string) error) error
	// Aggregate runs an aggregate request of the query engine (query/) over
	// t at v: at HEAD on the in-memory heap, otherwise on the tree at v
	// (query.RunTree). req.Table and req.AsOf are filled in by the source.
	Aggregate(ctx context.Context, v Version, t *Table, req query.Request) (*query.Result, error)
	// History is the history service behind the source, for the
	// sidecar.* functions (diff, log, tags).
	History() history.API
}

// errStopScan, returned by a Scan callback, ends the scan early.
var errStopScan = errors.New("stop scan")

// HistorySource is the Source over a mirror and its history service.
type HistorySource struct {
	H *history.Service
	M *mirror.Mirror
	// Head, when set, is the daemon's in-memory HEAD (heap + radix index):
	// point gets, key ranges and aggregates at the version it holds read
	// it directly; every other read goes through H (the trees).
	Head *head.Model
	// HeadLoading, when set, says why Head is about to answer but does
	// not yet ("" when it is not loading): a full-table aggregate of a
	// large table at HEAD is refused meanwhile (treecount.go).
	HeadLoading func() string

	tables sync.Map // *wal.Relation → *Table
	// atHead caches the version HEAD resolved to and the relations of
	// that version, rebuilt when the mirror's head moves (reading
	// Mirror.Tables per statement takes the mirror's lock).
	atHead atomic.Pointer[headState]
}

// headState is HEAD's version and the followed tables there.
type headState struct {
	v      Version
	tables map[string]*Table
	facts  uint64 // the mirror's FactsGeneration when built
}

// head is the state of the mirror's current head (nil before the first
// commit).
//
// The cache is keyed by the head's LSN, which a resync does not move: the
// copy lands at the head's LSN with a new relation and new rows. A read
// that finds rows of another relation than the Table it was given drops
// the cache (stale), so the statement is planned again on the relation
// the mirror holds now.
func (s *HistorySource) head() *headState {
	h := s.M.Head().EndLSN
	if h == 0 {
		return nil
	}
	gen := s.M.FactsGeneration()
	if st := s.atHead.Load(); st != nil && st.v.at == h && st.facts == gen {
		return st
	}
	st := &headState{v: Version{Ref: "HEAD", LSN: h.String(), pin: h.String(), at: h}, tables: map[string]*Table{}, facts: gen}
	for _, ti := range s.M.Tables() {
		if ti.Relation != nil && !s.M.Gone(ti.Name) { // mirror/gone.go
			st.tables[ti.Name] = s.describe(ti.Relation)
		}
	}
	if s.M.Head().EndLSN != h { // moved while listing: do not cache
		return st
	}
	s.atHead.Store(st)
	return st
}

// stale drops the cached head state after a read found that t's
// relation is no longer the one its rows are stored with (a resync
// landed), and says what the statement gets: errReplan when nothing was
// read yet (the session plans it again on the new relation and runs it
// again), otherwise a serialization failure the client can retry (rows
// of the old relation were already sent).
func (s *HistorySource) stale(t *Table, sent bool) error {
	s.atHead.Store(nil)
	if !sent {
		return errReplan
	}
	return errf(codeSerialization, -1, "the columns of %s changed while it was read (a resync after a schema change landed); run the statement again", t.Name)
}

// codeSerialization is serialization_failure: retry the statement.
const codeSerialization = "40001"

// errRelationMoved is returned from a tree read's header callback when
// the tree holds rows of another relation than the Table read.
var errRelationMoved = errors.New("the table's relation changed")

// describe describes rel with its key codec, cached by relation (a
// relation is immutable: a schema change makes a new one). Relations
// read from the mirror's records (RelationAt) are new values each time:
// they are cached by their content, so the cache stays as small as the
// number of schemas the tables had.
func (s *HistorySource) describe(rel *wal.Relation) *Table {
	if t, ok := s.tables.Load(rel); ok {
		return t.(*Table)
	}
	sig := relSignature(rel)
	if t, ok := s.tables.Load(sig); ok {
		s.tables.Store(rel, t)
		return t.(*Table)
	}
	t := tableOf(rel)
	if len(t.KeyCols) > 0 {
		kinds := make([]rowenc.KeyKind, len(t.KeyCols))
		for i, k := range t.KeyCols {
			kinds[i] = rowenc.KindForOID(t.Columns[k].TypeOID)
		}
		t.codec, _ = rowenc.NewKeyCodec(kinds...) // nil: reads go to the tree, which reports it
	}
	s.tables.Store(sig, &t)
	return &t
}

// relSignature is rel's content as a cache key.
func relSignature(rel *wal.Relation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%d\x00%c", rel.QualifiedName(), rel.OID, rel.Identity)
	for _, c := range rel.Columns {
		fmt.Fprintf(&b, "\x00%s:%d:%d:%s:%t:%v", c.Name, c.TypeOID, c.TypeMod, c.TypeName, c.Key, c.Collation)
	}
	if rel.Facts != nil {
		fmt.Fprintf(&b, "\x00%v", *rel.Facts)
	}
	return b.String()
}

var _ Source = (*HistorySource)(nil)

func tableOf(rel *wal.Relation) Table {
	t := Table{Name: rel.QualifiedName(), Schema: rel.Schema, Rel: rel.Name, OID: rel.OID, Facts: rel.Facts}
	for i, c := range rel.Columns {
		t.Columns = append(t.Columns, Column{Name: c.Name, TypeOID: c.TypeOID, TypeMod: c.TypeMod, TypeName: c.TypeName, Key: c.Key, Collation: c.Collation})
		if c.Key && rel.Identity != wal.IdentityFull {
			t.KeyCols = append(t.KeyCols, i)
		}
	}
	setDomainBases(&t) // domaincols.go
	return t
}

// Tables implements Source.
func (s *HistorySource) Tables() []Table {
	if s.M == nil { // no mirror (a front end serving nothing): no tables
		return nil
	}
	var out, gone []Table
	for _, ti := range s.M.Tables() {
		switch {
		case ti.Relation == nil:
		case s.M.Gone(ti.Name):
			gone = append(gone, tableOf(ti.Relation))
		default:
			out = append(out, tableOf(ti.Relation))
		}
	}
	withoutGoneRelations(out, gone) // gonetables.go
	return out
}

// GoneTables are the followed tables PostgreSQL no longer has (dropped
// or renamed away: mirror/gone.go): Tables leaves them out, but the
// versions before they went keep their rows (gonetables.go).
func (s *HistorySource) GoneTables() []Table {
	if s.M == nil {
		return nil
	}
	var out []Table
	for _, ti := range s.M.Tables() {
		if ti.Relation != nil && s.M.Gone(ti.Name) {
			out = append(out, tableOf(ti.Relation))
		}
	}
	return out
}

// History implements Source.
func (s *HistorySource) History() history.API { return s.H }

// Resolve implements Source.
//
// HEAD is the mirror's head without a look-up (the resolver's answer for
// HEAD, which otherwise reads the commit log twice per statement).
func (s *HistorySource) Resolve(ctx context.Context, ref string) (Version, error) {
	if ref == "HEAD" {
		if st := s.head(); st != nil {
			return st.v, nil
		}
	}
	p, err := s.H.Resolve(ctx, ref)
	if err != nil {
		return Version{}, err
	}
	v := Version{Ref: ref, LSN: p.LSN().String(), pin: p.LSN().String()}
	if p.Branch != nil {
		v.pin = ref
	} else {
		v.at = p.LSN()
	}
	return v, nil
}

// Table implements Source.
func (s *HistorySource) Table(ctx context.Context, v Version, name string) (Table, error) {
	if st := s.head(); st != nil && v.at == st.v.at {
		if t := st.tables[name]; t != nil {
			return *t, nil
		}
	}
	cur := s.currentRelation(name)
	if cur == nil {
		return Table{}, fmt.Errorf("table %q: %w", name, ErrUnknownTable)
	}
	lsn, err := wal.ParseLSN(v.LSN)
	if err != nil || lsn == s.M.Head().EndLSN {
		if s.M.Gone(name) {
			// Dropped or renamed away in PostgreSQL: not a table at
			// HEAD (its versions before stay readable).
			return Table{}, fmt.Errorf("table %q: %w", name, ErrUnknownTable)
		}
		return *s.describe(cur), nil
	}
	rel, err := s.M.RelationAt(name, lsn)
	if err != nil {
		return Table{}, err
	}
	t := *s.describe(rel)
	assumeColumnTypes(&t, s.Tables()) // domaincols.go
	return t, nil
}

// currentRelation is the mirror's relation of table name (nil: not
// followed).
func (s *HistorySource) currentRelation(name string) *wal.Relation {
	for _, ti := range s.M.Tables() {
		if ti.Name == name {
			return ti.Relation
		}
	}
	return nil
}

func padRow(t *Table, r *history.Row) []*string {
	if len(r.Values) >= len(t.Columns) {
		return r.Values[:len(t.Columns)]
	}
	out := make([]*string, len(t.Columns))
	copy(out, r.Values)
	return out
}

// headTable is t's state in the in-memory HEAD when it may serve t at v:
// the model holds the table with t's relation (after a resync the model
// holds rows of the new relation while a Table of the old one may still
// be in hand). Its reads check, under the table's lock, that it is still
// the model's state at v (not replaced since), so the relation checked
// here is the one of the rows they return.
func (s *HistorySource) headTable(v Version, t *Table) *head.Table {
	if s.Head == nil || v.at == 0 || t.codec == nil {
		return nil
	}
	ht := s.Head.Table(t.Name)
	if ht == nil || !sameRelation(ht.Relation(), t) {
		return nil
	}
	return ht
}

// headGet reads key from the in-memory HEAD; ok=false when it cannot
// answer for t at v (the tree answers).
func (s *HistorySource) headGet(v Version, t *Table, key []string) (row []byte, found, ok bool) {
	ht := s.headTable(v, t)
	if ht == nil {
		return nil, false, false
	}
	k, err := t.codec.Encode(key...)
	if err != nil {
		return nil, false, false
	}
	return ht.HeadGet(k, v.at, make([]byte, 0, 256))
}

// Get implements Source.
func (s *HistorySource) Get(ctx context.Context, v Version, t *Table, key []string) ([]*string, bool, error) {
	if row, found, ok := s.headGet(v, t, key); ok {
		if !found {
			return nil, false, nil
		}
		vals, err := decodeValues(t, row, nil, nil)
		return vals, err == nil, err
	}
	res, err := s.H.Get(ctx, history.ReadRequest{Table: t.Name, AsOf: v.pin, PK: key})
	if err != nil {
		return nil, false, err
	}
	if !sameColumnsAs(res.Columns, t) {
		return nil, false, s.stale(t, false)
	}
	if len(res.Rows) == 0 {
		return nil, false, nil
	}
	return padRow(t, &res.Rows[0]), true, nil
}

// sameColumnsAs says whether a read's columns are t's (names and types).
func sameColumnsAs(cols []history.Column, t *Table) bool {
	if len(cols) != len(t.Columns) {
		return false
	}
	for i, c := range cols {
		if c.Name != t.Columns[i].Name || c.Type != t.Columns[i].TypeName {
			return false
		}
	}
	return true
}

// Scan implements Source: from the in-memory HEAD when it holds v (see
// scanHead), otherwise from the tree.
func (s *HistorySource) Scan(ctx context.Context, v Version, t *Table, from, to string, fn func([]*string) error) error {
	return s.scan(ctx, v, t, from, to, fn, nil)
}

// ScanRaw is Scan handing out canonical rows (rowenc), valid during raw.
func (s *HistorySource) ScanRaw(ctx context.Context, v Version, t *Table, from, to string, raw func([]byte) error) error {
	return s.scan(ctx, v, t, from, to, nil, raw)
}

// GetRaw is Get returning the canonical row (rowenc).
func (s *HistorySource) GetRaw(ctx context.Context, v Version, t *Table, key []string) ([]byte, bool, error) {
	if row, found, ok := s.headGet(v, t, key); ok {
		return row, found, nil
	}
	vals, ok, err := s.Get(ctx, v, t, key)
	if err != nil || !ok {
		return nil, ok, err
	}
	return encodeValues(vals), true, nil
}

// encodeValues is a row of texts in the canonical encoding (rowenc).
func encodeValues(row []*string) []byte {
	vals := make([][]byte, len(row))
	for i, v := range row {
		if v != nil {
			vals[i] = []byte(*v)
		}
	}
	return rowenc.Append(nil, vals)
}

// scan is Scan (vals) or ScanRaw (raw): exactly one of them is set.
func (s *HistorySource) scan(ctx context.Context, v Version, t *Table, from, to string, fn func([]*string) error, raw func([]byte) error) error {
	var after []byte // resume the tree scan past this key
	if ht := s.headTable(v, t); ht != nil {
		last, done, err := s.scanHead(ctx, ht, v, t, from, to, fn, raw)
		if errors.Is(err, errStopScan) {
			return nil
		}
		if done || err != nil {
			return err
		}
		after = last
	}
	if after != nil {
		// The model moved on mid-scan: go on from the tree at v, from
		// the first key column of the last row sent, skipping up to it.
		first, err := rowenc.DecodeKey(after, t.codec.Kinds())
		if err != nil {
			return fmt.Errorf("scan %s: resume key: %w", t.Name, err)
		}
		from = first[0]
	}
	keyTexts := make([]string, len(t.KeyCols))
	sent := after != nil
	err := s.H.ScanRows(ctx, history.ReadRequest{Table: t.Name, AsOf: v.pin, From: from, To: to},
		func(_ history.ReadHeader, rel *wal.Relation) error {
			if !sameRelation(rel, t) {
				return errRelationMoved
			}
			return nil
		},
		func(vrow []byte) error {
			if raw != nil && after == nil {
				return raw(vrow)
			}
			row, err := decodeValues(t, vrow, nil, nil)
			if err != nil {
				return err
			}
			if after != nil {
				for i, c := range t.KeyCols {
					if row[c] != nil {
						keyTexts[i] = *row[c]
					}
				}
				k, err := t.codec.Encode(keyTexts...)
				if err != nil {
					return fmt.Errorf("scan %s: resume key: %w", t.Name, err)
				}
				if bytes.Compare(k, after) <= 0 {
					return nil
				}
				after = nil
			}
			if raw != nil {
				return raw(vrow)
			}
			return fn(row)
		})
	if errors.Is(err, errStopScan) {
		return nil
	}
	if errors.Is(err, errRelationMoved) {
		return s.stale(t, sent)
	}
	return err
}

// headChunk is how many rows a HEAD scan copies per read lock of the
// model: apply of the table waits while a chunk is copied, so chunks are
// short; between chunks the scan checks the model is still at v.
const headChunk = 4096

// scanHead scans [from, to) of the first key column from the in-memory
// HEAD in chunks, each copied under the model's read lock at version v
// and then handed to fn. done=false with last=nil: the model does not
// hold v (nothing was sent); done=false with last set: the model moved
// past v after rows up to key last were sent, the caller goes on from
// the tree.
func (s *HistorySource) scanHead(ctx context.Context, ht *head.Table, v Version, t *Table, from, to string, fn func([]*string) error, raw func([]byte) error) (last []byte, done bool, err error) {
	var start, end []byte
	if from != "" {
		if start, err = t.codec.AppendPrefix(nil, [][]byte{[]byte(from)}); err != nil {
			return nil, false, nil // the tree path reports it
		}
	}
	if to != "" {
		if end, err = t.codec.AppendPrefix(nil, [][]byte{[]byte(to)}); err != nil {
			return nil, false, nil
		}
	}
	var arena []byte
	var ends []int
	for {
		if err := ctx.Err(); err != nil {
			return nil, true, err
		}
		arena, ends = arena[:0], ends[:0]
		var lastKey []byte
		served, err := ht.HeadRange(start, end, headChunk, v.at, nil, func(k, row []byte) bool {
			arena = append(arena, row...)
			ends = append(ends, len(arena))
			lastKey = append(lastKey[:0], k...)
			return true
		})
		if !served {
			// Not at v (any more): the tree goes on. The same head
			// table is read for every chunk, so a table replaced by a
			// resync meanwhile is not served with t's columns.
			return last, false, nil
		}
		if err != nil {
			return nil, true, fmt.Errorf("scan %s: %w", t.Name, err)
		}
		off, w := 0, len(t.Columns)
		decoded := ends
		if raw != nil {
			for _, e := range ends {
				if err := raw(arena[off:e]); err != nil {
					return nil, true, err
				}
				off = e
			}
			decoded = nil
		}
		outs, texts := make([]*string, w*len(decoded)), make([]string, w*len(decoded))
		for i, e := range decoded {
			vals, err := decodeValues(t, arena[off:e], outs[i*w:], texts[i*w:])
			if err != nil {
				return nil, true, err
			}
			off = e
			if err := fn(vals); err != nil {
				return nil, true, err
			}
		}
		if len(ends) < headChunk {
			return nil, true, nil
		}
		last = lastKey
		start = append(bytes.Clone(lastKey), 0) // the least key after it
	}
}

// decodeValues reads a canonical row (rowenc) as t's column values:
// missing trailing values (columns added later) are NULL. The texts share
// one string; out and texts, when long enough, are used for the result
// (a scan hands out slices of one allocation per chunk).
func decodeValues(t *Table, row []byte, out []*string, texts []string) ([]*string, error) {
	n := len(t.Columns)
	if len(out) < n || len(texts) < n {
		out, texts = make([]*string, n), make([]string, n)
	}
	out, texts = out[:n:n], texts[:n:n]
	var b strings.Builder
	b.Grow(len(row))
	var ends [16]int
	offs := ends[:0]
	it := rowenc.NewIter(row)
	for it.Next() {
		c := it.Column()
		if c >= n {
			return nil, fmt.Errorf("decode row of %s: %d columns, the row has more values", t.Name, n)
		}
		b.Write(it.Value())
		offs = append(offs, b.Len())
		if !it.Null() {
			out[c] = &texts[c]
		}
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("decode row of %s: %w", t.Name, err)
	}
	all, start := b.String(), 0
	for c, end := range offs {
		texts[c] = all[start:end]
		start = end
	}
	return out, nil
}

// Aggregate implements Source.
func (s *HistorySource) Aggregate(ctx context.Context, v Version, t *Table, req query.Request) (*query.Result, error) {
	req.Table, req.AsOf = t.Name, v.pin
	if snap := s.headSnapshot(ctx, v, t); snap != nil {
		defer snap.Release()
		p, err := query.Bind(req, schemaOf(t))
		if err != nil {
			return nil, err
		}
		return query.Run(ctx, p, query.FromSnapshot(snap), query.Options{})
	}
	if res, ok, err := s.treeCount(ctx, v, t, req); ok || err != nil {
		return res, err
	}
	if err := s.refuseWhileLoading(v, t, req); err != nil {
		return nil, err
	}
	res, hdr, err := query.RunTree(ctx, s.H, req)
	if hdr.Columns != nil && !sameColumnsAs(hdr.Columns, t) {
		return nil, s.stale(t, false)
	}
	return res, err
}

// headSnapshot is a heap snapshot of t from the in-memory HEAD when it is
// exactly the state at v and its rows are of t's relation, or nil.
//
// A model that follows the mirror but has not applied v yet (it trails the
// trees by a commit group) is waited for, up to the history service's
// snapshot Wait: the tree's answer to an aggregate of a large table takes
// minutes (restart-2026-12-05.md: count(*) of 3M rows on the tree with the
// model ready, under an update load).
func (s *HistorySource) headSnapshot(ctx context.Context, v Version, t *Table) *heap.Snapshot {
	if s.Head == nil || v.at == 0 {
		return nil
	}
	var deadline time.Time
	if s.H != nil && s.H.Snapshots() != nil {
		deadline = time.Now().Add(s.H.Snapshots().Wait)
	}
	for {
		snap, rel, err := s.Head.SnapshotAt(t.Name, v.at)
		if err == nil {
			if !sameRelation(rel, t) {
				snap.Release()
				return nil
			}
			return snap
		}
		if !s.Head.Following() || s.Head.Current() >= v.at || !time.Now().Before(deadline) {
			return nil // not following, past v, or waited enough: the tree
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Millisecond):
		}
	}
}

// sameRelation says whether rel has t's columns (names and types).
func sameRelation(rel *wal.Relation, t *Table) bool {
	if rel == nil || len(rel.Columns) != len(t.Columns) {
		return false
	}
	for i, c := range rel.Columns {
		if c.Name != t.Columns[i].Name || c.TypeOID != t.Columns[i].TypeOID {
			return false
		}
	}
	return true
}
