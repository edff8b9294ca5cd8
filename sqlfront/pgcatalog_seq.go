package sqlfront

import (
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/wal"
)

// The sequences the followed tables' columns own (serial and identity
// columns) are relations of a database holding the followed tables:
// pg_class lists them and pg_sequence holds their parameters, both from
// what the copy and the catalog poll read (wal.SequenceFacts). A table
// whose sequences were not read (a record written before) keeps them
// unlisted: statements that could reach them are refused
// (pgcatalog_reach.go).

// listedSequences returns t's owned sequences pg_class lists: all of
// them once read, those in a schema pg_namespace lists.
func listedSequences(t *Table, ns map[string]uint32) []wal.SequenceFacts {
	s := schemaFactsOf(t)
	if s == nil || !s.SequencesRead || s.Owner == "" {
		return nil
	}
	var out []wal.SequenceFacts
	for _, q := range s.OwnedSequences {
		if _, ok := ns[q.Schema]; ok && q.OwnerOID == s.OwnerOID {
			out = append(out, q)
		}
	}
	return out
}

// unlistedSequences returns the names (unquoted) of t's owned sequences
// pg_class does not list.
func unlistedSequences(t *Table, ns map[string]uint32) []string {
	s := schemaFactsOf(t)
	if s == nil {
		return nil
	}
	var out []string
	if !s.SequencesRead || s.Owner == "" {
		for _, q := range s.Sequences {
			if q != "" {
				_, name, _ := strings.Cut(q, ".")
				out = append(out, strings.Trim(name, `"`))
			}
		}
		return out
	}
	listed := map[uint32]bool{}
	for _, q := range listedSequences(t, ns) {
		listed[q.OID] = true
	}
	for _, q := range s.OwnedSequences {
		if !listed[q.OID] {
			out = append(out, q.Name)
		}
	}
	return out
}

// seqClassRows are the owned sequences' pg_class rows.
func seqClassRows(cx *pgCatCtx, ns map[string]uint32) [][]*string {
	var out [][]*string
	u := pgUnknown
	for i := range cx.tables {
		t := &cx.tables[i]
		for _, q := range listedSequences(t, ns) {
			out = append(out, []*string{u32(q.OID), sv(q.Name), nsOID(ns[q.Schema]), u, sv("0"), u32(q.OwnerOID), sv("0"), u, sv("0"), u, u, u, sv("0"),
				sv("f"), sv("f"), sv(charText(q.Persistence)), sv("S"), sv("3"), sv("0"), sv("f"), sv("f"), sv("f"), sv("f"), sv("f"), sv("t"), sv("n"),
				sv("f"), sv("0"), u, u, u, nil, nil})
		}
	}
	return out
}

// sequenceRel is pg_sequence: the owned sequences' parameters.
var sequenceRel = &pgRel{schema: "pg_catalog", name: "pg_sequence",
	cols: pgc("seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8, seqmax int8, seqmin int8, seqcache int8, seqcycle bool"),
	rows: func(cx *pgCatCtx) [][]*string {
		_, ns := cx.namespaces()
		var out [][]*string
		for i := range cx.tables {
			for _, q := range listedSequences(&cx.tables[i], ns) {
				i64 := func(n int64) *string { return sv(strconv.FormatInt(n, 10)) }
				out = append(out, []*string{u32(q.OID), u32(q.TypeOID), i64(q.Start), i64(q.Increment), i64(q.Max), i64(q.Min), i64(q.Cache), bv(q.Cycle)})
			}
		}
		return append(out, listedOnlySequenceRows(cx)...) // pgcatalog_relations.go
	}}
