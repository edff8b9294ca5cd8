package mirror

import (
	"context"
	"fmt"

	"github.com/sidecar-dev/sidecar/wal"
)

// Catalog facts (wal/catfacts.go) are kept with a table's Relation: in
// its table record and in the relation records that say which Relation
// the trees use from a version on, so a restart and AS OF reads know the
// collations and descendants as of the version read. They are encoded
// as an optional section after the columns, so records written before
// they were read still decode (as Relations without facts).

const factsMark = 'f' // starts the optional facts section of a Relation

func encodeFacts(e *enc, rel *wal.Relation) {
	f := rel.Facts
	if f == nil {
		return
	}
	e.byte(factsMark)
	for _, c := range rel.Columns {
		encodeCollation(e, c.Collation)
	}
	e.byte(f.Kind)
	encodeCollation(e, f.Default)
	e.uvarint(uint64(len(f.Descendants)))
	for _, d := range f.Descendants {
		e.str(d.Name)
		e.str(d.Parent)
		e.byte(d.Kind)
	}
	e.str(f.PartitionOf)
	encodeFactsSections(e, f) // catfacts_section.go
}

const columnFactsMark = 'c' // starts the optional column facts section, after the facts

// encodeColumnFacts writes the column definitions and primary key of f
// (wal.Facts.Columns), when read, as an optional section (the fields
// after its mark: catfacts_section.go): records written before they
// were end before it.
func encodeColumnFacts(e *enc, f *wal.Facts) {
	e.uvarint(uint64(len(f.Columns)))
	for _, c := range f.Columns {
		flags := byte(0)
		if c.NotNull {
			flags |= 1
		}
		if c.HasDefault {
			flags |= 2
		}
		e.byte(flags)
		e.str(c.Default)
		e.str(c.DefaultPretty)
		e.byte(c.Identity)
		e.byte(c.Generated)
	}
	if f.PrimaryKey == nil {
		e.byte(0)
		return
	}
	e.byte(1)
	e.str(f.PrimaryKey.Name)
	e.uvarint(uint64(len(f.PrimaryKey.Columns)))
	for _, c := range f.PrimaryKey.Columns {
		e.str(c)
	}
}

// decodeColumnFacts reads the fields encodeColumnFacts writes.
func decodeColumnFacts(d *dec, f *wal.Facts) {
	n := d.count()
	f.Columns = make([]wal.ColumnFacts, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		flags := d.byte()
		f.Columns = append(f.Columns, wal.ColumnFacts{NotNull: flags&1 != 0, HasDefault: flags&2 != 0, Default: d.str(), DefaultPretty: d.str(), Identity: d.byte(), Generated: d.byte()})
	}
	if d.byte() == 1 {
		pk := &wal.KeyConstraint{Name: d.str()}
		n := d.count()
		for i := 0; i < n && d.err == nil; i++ {
			pk.Columns = append(pk.Columns, d.str())
		}
		f.PrimaryKey = pk
	}
}

func encodeCollation(e *enc, c wal.Collation) {
	e.str(c.Name)
	e.str(c.Locale)
	e.byte(byte(c.Order))
	if c.Order == wal.CollLibc {
		e.str(c.Version) // only this order has one: older records decode as before
	}
}

func decodeCollation(d *dec) wal.Collation {
	c := wal.Collation{Name: d.str(), Locale: d.str(), Order: wal.CollOrder(d.byte())}
	if c.Order == wal.CollLibc {
		c.Version = d.str()
	}
	return c
}

// decodeFacts reads the optional facts section of a Relation: present
// when the next byte is factsMark. The Relation is the last field of
// every record that holds one, so a record without the section has no
// bytes left here.
func decodeFacts(d *dec, rel *wal.Relation) {
	if d.err != nil || len(d.b) == 0 || d.b[0] != factsMark {
		return
	}
	d.byte()
	for i := range rel.Columns {
		rel.Columns[i].Collation = decodeCollation(d)
	}
	f := &wal.Facts{Kind: d.byte(), Default: decodeCollation(d)}
	n := d.count()
	for i := 0; i < n && d.err == nil; i++ {
		f.Descendants = append(f.Descendants, wal.Descendant{Name: d.str(), Parent: d.str(), Kind: d.byte()})
	}
	f.PartitionOf = d.str()
	decodeFactsSections(d, f) // catfacts_section.go
	rel.Facts = f
}

// UpdateFacts records catalog facts read after the copy (the daemon's
// catalog poll: an ALTER TABLE … INHERIT, a new partition of a child, a
// column's collation changed) for a ready table: rel must describe the
// same columns as the table's Relation (Equal); its facts replace the
// stored ones from the current head on. A table whose columns changed
// (a resync is due, and reads the facts again) or that is not followed
// is left as it is. It reports whether anything changed.
func (m *Mirror) UpdateFacts(ctx context.Context, rel *wal.Relation) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return false, m.err
	}
	name := rel.QualifiedName()
	t := m.tables[name]
	if t != nil {
		rel = withEnumHistory(rel, t.rec.Rel) // catfacts_enumhistory.go: the catalog has only the current labels
	}
	if t == nil || t.rec.State != StateReady || !t.rec.Rel.Equal(rel) || t.rec.Rel.SameFacts(rel) {
		return false, nil
	}
	nrel := t.rec.Rel.WithFacts(rel)
	rec := t.rec
	rec.Rel = nrel
	end := max(m.lastGroup, m.head.EndLSN)
	op := &writeOp{sync: true}
	op.set(tableKey(name), rec.encode())
	op.set(relKey(name, end), encodeRel(nrel))
	if err := m.enqueueWait(op); err != nil {
		return false, fmt.Errorf("record catalog facts of %s: %w", name, err)
	}
	t.rec.Rel = nrel
	m.factsGen.Add(1)
	m.log.Info("catalog facts of a followed table changed", "table", name)
	return true, nil
}

// FactsGeneration counts the catalog-fact updates since Open: a reader
// caching Relations by the head's LSN drops its cache when it moves.
func (m *Mirror) FactsGeneration() uint64 { return m.factsGen.Load() }
