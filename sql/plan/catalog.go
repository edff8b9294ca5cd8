package plan

import (
	"fmt"

	"github.com/sidecar-dev/sidecar/types"
)

// Catalog is what the binder resolves table names against: the followed
// tables at the statement's version (a snapshot's relations).
type Catalog interface {
	// Table finds a table by schema ("" : the search path, public) and
	// name, as PostgreSQL folds them; nil when there is none.
	Table(schema, name string) *TableDef
}

// TableDef is one table as the planner sees it.
type TableDef struct {
	Schema, Name string
	Columns      []ColumnDef
	Key          []int // primary key columns (indexes into Columns), key order
	// PrimaryKey are the columns of the table's PRIMARY KEY constraint
	// (indexes into Columns; nil: none, or not known). Key may be a
	// replica identity on another unique index: only the constraint
	// makes the other columns functionally dependent on a grouping
	// (PostgreSQL's check_functional_grouping), aggregate.go.
	PrimaryKey []int
	Rows       int64 // estimated row count (0: unknown)
}

// QualifiedName is schema.name.
func (t *TableDef) QualifiedName() string { return t.Schema + "." + t.Name }

// ColumnDef is one column of a table.
type ColumnDef struct {
	Name    string
	Type    Type
	NotNull bool
	// System marks a system column (a catalog's tableoid): found by
	// name, never expanded by * nor part of the whole-row value.
	System bool
	// Distinct is an estimate of the column's number of distinct values
	// (0: unknown), for the optimizer's join estimates (sql/opt).
	Distinct int64
	// ByteOrder: a text or varchar column whose collation (its own, else
	// the database default) is known to order as the UTF-8 bytes (C,
	// POSIX, ucs_basic, C.UTF-8, the builtin provider), so its key order
	// is PostgreSQL's ORDER BY order (sql/opt keyorder.go). False when
	// the collation is another or was not read.
	ByteOrder bool
	// Enum is the column's enum type, as read at the table's version,
	// when its type is a user enum (enum.go); nil otherwise.
	Enum *types.Enum
}

// ColumnID numbers a column of a query (1-based; 0 is none). Every base
// column a scan produces and every column an operator computes has its
// own ID: a table scanned twice gives two sets of IDs.
type ColumnID int

// ColumnMeta describes one ColumnID.
type ColumnMeta struct {
	Name  string // as PostgreSQL names the output column
	Table string // the FROM item's alias or table name ("" for computed ones)
	Type  Type
}

// Metadata holds the columns of one query.
type Metadata struct {
	cols []ColumnMeta
	// collations are the names of the explicit COLLATE clauses bound
	// (collate.go), views' and subqueries' included.
	collations []string
	// enums are the user enum types the query reads (enum.go).
	enums map[OID]*types.Enum
}

// Add numbers a new column.
func (m *Metadata) Add(c ColumnMeta) ColumnID {
	m.cols = append(m.cols, c)
	return ColumnID(len(m.cols))
}

// setType retypes id (a set operation's untyped literal, resolved to
// the operation's column type).
func (m *Metadata) setType(id ColumnID, t Type) { m.cols[id-1].Type = t }

// Len is the number of columns (their IDs are 1..Len).
func (m *Metadata) Len() int { return len(m.cols) }

// Column describes id.
func (m *Metadata) Column(id ColumnID) ColumnMeta { return m.cols[id-1] }

// Label is how EXPLAIN names id: table.column for a base column, the
// name for a computed one.
func (m *Metadata) Label(id ColumnID) string {
	c := m.Column(id)
	label := c.Name
	if c.Table != "" {
		label = c.Table + "." + c.Name
	}
	for i, o := range m.cols {
		if o.Table == c.Table && o.Name == c.Name && ColumnID(i+1) != id {
			return fmt.Sprintf("%s#%d", label, id) // two columns of one name (a table read twice)
		}
	}
	return label
}
