package wal

import (
	"reflect"
	"slices"
)

// SchemaFacts are the definitions around a followed table that clients
// read from pg_catalog (pg_constraint, pg_index, pg_description, owned
// sequences) and that neither a pgoutput Relation message nor the
// column facts carry. The copy and the daemon's catalog poll read them
// (replication/relmeta_schema.go); the SQL port serves them.
//
// Definitions are kept as PostgreSQL prints them (pg_get_constraintdef,
// pg_get_indexdef), read with search_path public, plain and pretty.
type SchemaFacts struct {
	// Constraints are the table's constraints other than NOT NULL, the
	// primary key included, by name.
	Constraints []ConstraintFacts
	// Indexes are the table's indexes, by name.
	Indexes []IndexFacts
	// Comment is obj_description(table, 'pg_class') ("" none).
	Comment string
	// ColumnComments are col_description per column, in the Relation's
	// column order ("" none).
	ColumnComments []string
	// Sequences are pg_get_serial_sequence per column, in the
	// Relation's column order ("" none).
	Sequences []string
	// ReferencedBy are the OIDs of the other tables with a foreign key
	// to this one: pg_constraint lacks the rows of those not followed.
	ReferencedBy []uint32
	// Triggers are the table's triggers psql lists (user triggers, and
	// internal ones disabled), by name.
	Triggers []TriggerFacts
	// Owner is the table's owner role (relowner) by OID and name.
	OwnerOID uint32
	Owner    string
	// DatabaseOID is the source database's pg_database.oid.
	DatabaseOID uint32
	// Options is the table's pg_class.reloptions (nil: NULL), read when
	// OptionsRead (records written before lack it).
	Options     []string
	OptionsRead bool
	// OwnedSequences are the sequences the table's columns own (serial
	// and identity columns: pg_depend 'a' and 'i'), by name, read when
	// SequencesRead (records written before lack them).
	OwnedSequences []SequenceFacts
	SequencesRead  bool
	// Views are the views above the table (catfacts_views.go), by OID,
	// read when ViewsRead (records written before lack them).
	Views     []ViewFacts
	ViewsRead bool
	// ViewColumnsRead says the views' columns' collations and defaults
	// were read (ViewColumn; records written before lack them).
	ViewColumnsRead bool
	// Namespaces are the schemas pg_namespace lists for the table: the
	// system ones (pg_catalog, pg_toast, information_schema), public and
	// the table's own, with their OIDs and owners; SystemTypes are
	// information_schema's domains and their arrays (catfacts_namespaces.go).
	// Read when NamespacesRead (records written before lack them).
	Namespaces     []NamespaceFacts
	SystemTypes    []TypeFacts
	NamespacesRead bool
	// ServerVersion is the source server's server_version_num when the
	// facts were read (0: not read, records written before): catalog
	// rows that differ by major (pg_type's "char" is typcategory 'S'
	// before 15, 'Z' from 15) answer as that major.
	ServerVersion int
	// Roles and Members are the cluster's pg_roles and pg_auth_members
	// rows (catfacts_roles.go), read with the schemas when RolesRead
	// (records written before, a follow user who may not read them, or
	// more than MaxRoles roles: not read). One table of each read
	// carries them (the others have RolesRead false), not every table.
	Roles     []RoleFacts
	Members   []MemberFacts
	RolesRead bool
	// ColumnStorage, ColumnCompression and ColumnStatTargets are
	// pg_attribute's attstorage, attcompression and attstattarget per
	// column, in the Relation's column order (a target "" is the
	// default: -1 before 17, NULL from 17; compression "" the default;
	// nil: every one empty), and ToastOptions the TOAST table's
	// reloptions (nil: NULL or no TOAST table). psql's \d+ prints them;
	// ALTER TABLE … SET STORAGE/COMPRESSION/STATISTICS and SET (toast.…)
	// are not replicated, so the catalog poll reads them again. Read
	// when StorageRead (records written before lack them).
	ColumnStorage     []string
	ColumnCompression []string
	ColumnStatTargets []string
	ToastOptions      []string
	// ReplIdent is pg_class.relreplident ('d', 'n', 'f', 'i'), which
	// \d+ prints when not the default.
	ReplIdent byte
	// RowSecurity and ForceRowSecurity are relrowsecurity and
	// relforcerowsecurity; Policies and StatisticsObjects count the
	// table's pg_policy and pg_statistic_ext rows (not read: psql's \d
	// footers for them are answered only when there are none).
	RowSecurity, ForceRowSecurity bool
	Policies, StatisticsObjects   int
	// UserFunctions counts the source database's functions outside
	// pg_catalog and information_schema (pg_proc is served only when
	// there are none: psql's \df and pgjdbc's getFunctions list none).
	UserFunctions int
	StorageRead   bool
	// Databases are the cluster's pg_database rows (catfacts_database.go),
	// read with the roles by the table carrying them when DatabasesRead.
	Databases     []DatabaseFacts
	DatabasesRead bool
	// Languages are the source database's pg_language rows
	// (catfacts_database.go), read with the databases when LanguagesRead.
	Languages     []LanguageFacts
	LanguagesRead bool
	// UserTypes are the database's domains and enums (catfacts_usertypes.go),
	// read with the roles by the table carrying them (nil: not read).
	UserTypes *UserTypeFacts
	// Publications are the database's publications
	// (catfacts_publications.go), read with the roles by the table
	// carrying them (nil: not read).
	Publications *PublicationFacts
	// Extensions are the database's extensions (catfacts_extensions.go),
	// read with the roles by the table carrying them (nil: not read).
	Extensions *ExtensionFacts
	// Listings are what psql's \dy, \do and \dL read of the database
	// (catfacts_listings.go), read with the roles by the table carrying
	// them (nil: not read).
	Listings *ListingFacts
	// Casts are the database's pg_cast rows as psql's \dC prints them
	// (catfacts_casts.go), read with the roles by the table carrying them
	// (nil: not read).
	Casts *CastFacts
	// PartDescribe is what psql's \d prints of the partitioned tables
	// above the followed partitions (catfacts_partdescribe.go), read with
	// the roles by the table carrying them (nil: not read).
	PartDescribe *PartDescribeFacts
	// Privileges are the column ACLs of the database's relations
	// (catfacts_privileges.go), read with the roles by the table carrying
	// them (nil: not read).
	Privileges *PrivilegeFacts
	// Psql is what psql's describe commands read of the database beyond
	// the above (catfacts_psql.go: the schemas' ACLs and comments), read
	// with the roles by the table carrying them (nil: not read).
	Psql *PsqlFacts
	// Access are the table's ACLs, policies and index columns
	// (catfacts_access.go; nil: not read).
	Access *AccessFacts
	// TypeDetail is what psql's \dT, \dD and \dO read of the database's
	// types beyond UserTypes (catfacts_typedetail.go), read with the
	// roles by the table carrying them (nil: not read).
	TypeDetail *TypeDetailFacts
	// Relations are every relation and schema of the database
	// (catfacts_relations.go), read with the roles by the table carrying
	// them (nil: not read).
	Relations *RelationListFacts
	// Procs are the user functions' pg_proc rows as psql's \df+ reads
	// them (catfacts_procs.go), read with the roles by the table
	// carrying them (nil: not read).
	Procs *ProcFacts
	// TypeList is every pg_type row as pgjdbc reads them
	// (catfacts_typelist.go), read with the roles by the table carrying
	// them (nil: not read).
	TypeList *TypeListFacts
	// ListedColumns are the columns of the relation list's tables,
	// views and foreign tables (catfacts_listedcols.go), read with the
	// relation list by the table carrying it (nil: not read).
	ListedColumns *ListedColumnsFacts
}

// SequenceFacts is an owned sequence's pg_class and pg_sequence rows
// (its parameters as of the read: ALTER SEQUENCE is not replicated,
// the catalog poll re-reads them).
type SequenceFacts struct {
	OID                               uint32
	Schema, Name                      string
	Column                            string // the owning column's name
	Identity                          bool   // owned by an identity column (deptype 'i')
	OwnerOID                          uint32 // relowner
	Persistence                       byte   // relpersistence
	TypeOID                           uint32 // seqtypid
	Start, Increment, Max, Min, Cache int64
	Cycle                             bool
}

// TriggerFacts is one trigger of the table.
type TriggerFacts struct {
	Name    string
	Def     string // pg_get_triggerdef(oid, true)
	Enabled byte   // tgenabled
	// Internal is tgisinternal; Inherited says tgparentid is set (the
	// trigger is a partition's clone of its parent's).
	Internal, Inherited bool
}

// ConstraintFacts is one row of pg_constraint for the table.
type ConstraintFacts struct {
	OID  uint32
	Name string
	// Type is contype: 'p' primary key, 'u' unique, 'f' foreign key,
	// 'c' check, 'x' exclusion.
	Type       byte
	Deferrable bool
	Deferred   bool
	Validated  bool
	// Columns are conkey's columns by name (attnums differ between
	// PostgreSQL and the mirror when columns were dropped or are not
	// published).
	Columns []string
	// Index is conindid (0: none).
	Index uint32
	// RefSchema, RefTable and RefOID name confrelid (foreign keys),
	// RefColumns confkey's columns by name.
	RefSchema, RefTable string
	RefOID              uint32
	RefColumns          []string
	// UpdateAction, DeleteAction, MatchType are confupdtype,
	// confdeltype, confmatchtype (0 for non-foreign keys).
	UpdateAction, DeleteAction, MatchType byte
	// Def and DefPretty are pg_get_constraintdef(oid) and (oid, true).
	Def, DefPretty string
	// NoInherit is connoinherit.
	NoInherit bool
}

// IndexFacts is one index of the table (pg_index and its pg_class row).
type IndexFacts struct {
	OID  uint32
	Name string
	// Columns are indkey's columns by name ("": an expression).
	Columns                           []string
	KeyColumns                        int16 // indnkeyatts
	Unique, Primary, Valid, Clustered bool
	Partial, Expressions              bool   // indpred / indexprs are not null
	ReplIdent                         bool   // indisreplident
	NullsNotDistinct                  bool   // indnullsnotdistinct (15+)
	Method                            string // pg_am.amname
	// Def and DefPretty are pg_get_indexdef(oid) and (oid, 0, true).
	Def, DefPretty string
	// Detail is the rest of the index's pg_index and pg_class rows (nil:
	// not read, a record written before it was).
	Detail *IndexDetail
}

// IndexDetail is what clients read of an index beyond IndexFacts:
// pg_index's vectors and expressions and the index's reloptions.
type IndexDetail struct {
	// Options, Collations and Classes are indoption, indcollation and
	// indclass as text ("0 0").
	Options, Collations, Classes string
	// Pred and PredPretty are pg_get_expr(indpred, indrelid[, true])
	// under search_path public ("": no predicate).
	Pred, PredPretty string
	// Exprs is indexprs as text (a pg_node_tree; "": none).
	Exprs string
	// RelOptions is the index's pg_class.reloptions (nil: NULL).
	RelOptions []string
}

// Equal reports whether s and o hold the same facts (an empty list and
// none are the same).
func (s *SchemaFacts) Equal(o *SchemaFacts) bool {
	if s == nil || o == nil {
		return s == o
	}
	return s.Comment == o.Comment && s.namespacesEqual(o) && s.rolesEqual(o) && s.OptionsRead == o.OptionsRead && slices.Equal(s.Options, o.Options) && (s.Options == nil) == (o.Options == nil) && s.OwnerOID == o.OwnerOID && s.DatabaseOID == o.DatabaseOID && s.Owner == o.Owner && slices.Equal(s.ReferencedBy, o.ReferencedBy) && slices.Equal(s.ColumnComments, o.ColumnComments) && slices.Equal(s.Sequences, o.Sequences) &&
		slices.EqualFunc(s.Constraints, o.Constraints, ConstraintFacts.equal) && slices.EqualFunc(s.Indexes, o.Indexes, IndexFacts.equal) &&
		slices.Equal(s.Triggers, o.Triggers) && s.SequencesRead == o.SequencesRead && slices.Equal(s.OwnedSequences, o.OwnedSequences) &&
		s.ViewsRead == o.ViewsRead && s.ViewColumnsRead == o.ViewColumnsRead && viewsEqual(s.Views, o.Views) && s.storageEqual(o) && s.databasesEqual(o) && s.UserTypes.Equal(o.UserTypes) &&
		s.Publications.Equal(o.Publications) && s.Extensions.Equal(o.Extensions) && s.Listings.Equal(o.Listings) && s.Access.Equal(o.Access) &&
		s.TypeDetail.Equal(o.TypeDetail) && s.Psql.Equal(o.Psql) && s.Relations.Equal(o.Relations) &&
		s.Procs.Equal(o.Procs) &&
		s.TypeList.Equal(o.TypeList) && s.ListedColumns.Equal(o.ListedColumns) && s.Casts.Equal(o.Casts) &&
		s.PartDescribe.Equal(o.PartDescribe) && s.Privileges.Equal(o.Privileges)
}

// storageEqual compares the \d+ column and TOAST facts.
func (s *SchemaFacts) storageEqual(o *SchemaFacts) bool {
	return s.StorageRead == o.StorageRead && slices.Equal(s.ColumnStorage, o.ColumnStorage) && slices.Equal(s.ColumnCompression, o.ColumnCompression) &&
		slices.Equal(s.ColumnStatTargets, o.ColumnStatTargets) && slices.Equal(s.ToastOptions, o.ToastOptions) && (s.ToastOptions == nil) == (o.ToastOptions == nil) && s.ReplIdent == o.ReplIdent &&
		s.RowSecurity == o.RowSecurity && s.ForceRowSecurity == o.ForceRowSecurity && s.Policies == o.Policies && s.StatisticsObjects == o.StatisticsObjects && s.UserFunctions == o.UserFunctions
}

func (c ConstraintFacts) equal(o ConstraintFacts) bool {
	x, y := c, o
	x.Columns, x.RefColumns, y.Columns, y.RefColumns = nil, nil, nil, nil
	return reflect.DeepEqual(x, y) && slices.Equal(c.Columns, o.Columns) && slices.Equal(c.RefColumns, o.RefColumns)
}

func (i IndexFacts) equal(o IndexFacts) bool {
	x, y := i, o
	x.Columns, y.Columns = nil, nil
	return reflect.DeepEqual(x, y) && slices.Equal(i.Columns, o.Columns)
}
