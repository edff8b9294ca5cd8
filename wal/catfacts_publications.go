package wal

import "slices"

// PublicationFacts are the source database's publications
// (pg_publication), their tables (pg_publication_rel) and, from 15,
// their schemas (pg_publication_namespace), read with the schemas by the
// table carrying the cluster's facts: psql's \d prints a followed
// table's publications in its "Publications:" footer, the sidecar's own
// among them. Every publication is read, with all its rows: a row may
// name a table the sidecar does not follow (the SQL port lists it, and
// refuses what needs that table's definition).
type PublicationFacts struct {
	Publications []PublicationRow
	Rels         []PublicationRel
	Namespaces   []PublicationNamespace
}

// PublicationRow is one pg_publication row. GenCols is pubgencols (18:
// 'n' none, 's' stored; 0 before 18).
type PublicationRow struct {
	OID, Owner                                  uint32
	Name                                        string
	AllTables, Insert, Update, Delete, Truncate bool
	ViaRoot                                     bool
	GenCols                                     byte
}

// PublicationRel is one pg_publication_rel row. Qual and QualPretty are
// pg_get_expr(prqual, prrelid[, true]) ("" and HasQual false: NULL);
// Attrs is prattrs (nil: NULL); both are 15's.
type PublicationRel struct {
	OID, PubOID, RelOID uint32
	HasQual             bool
	Qual, QualPretty    string
	Attrs               []int16
	// AttrNames are the names of Attrs in the table, in prattrs' order.
	AttrNames []string
}

// PublicationNamespace is one pg_publication_namespace row.
type PublicationNamespace struct {
	OID, PubOID, NspOID uint32
}

// MaxPublicationRows bounds the rows read (publications, their tables
// and schemas): a database with more is recorded without them (the SQL
// port then refuses what they answer).
const MaxPublicationRows = 10000

// Equal reports whether p and o hold the same rows (nil: not read).
func (p *PublicationFacts) Equal(o *PublicationFacts) bool {
	if p == nil || o == nil {
		return p == o
	}
	return slices.Equal(p.Publications, o.Publications) && slices.EqualFunc(p.Rels, o.Rels, PublicationRel.equal) && slices.Equal(p.Namespaces, o.Namespaces)
}

func (r PublicationRel) equal(o PublicationRel) bool {
	return r.OID == o.OID && r.PubOID == o.PubOID && r.RelOID == o.RelOID && r.HasQual == o.HasQual && r.Qual == o.Qual && r.QualPretty == o.QualPretty &&
		slices.Equal(r.Attrs, o.Attrs) && (r.Attrs == nil) == (o.Attrs == nil) && slices.Equal(r.AttrNames, o.AttrNames)
}
