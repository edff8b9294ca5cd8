package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// TestDatabaseFactsRoundTrip: the cluster's databases (psql's \l) and
// the database's languages (pg_language) decode
// to what was encoded — NULL and empty ACLs, NULL locales, rules and
// collation versions kept apart from empty ones —, also when the parts
// before them were not read; a record without them (written before)
// decodes with DatabasesRead false and its other parts intact.
func TestDatabaseFactsRoundTrip(t *testing.T) {
	dbs := []wal.DatabaseFacts{
		{OID: 5, Name: "postgres", Owner: 10, Encoding: 6, LocProvider: 'c', AllowConn: true, ConnLimit: -1, Tablespace: 1663,
			Collate: "C", Ctype: "C", LocaleNull: true, RulesNull: true, VerNull: true, Comment: "default administrative connection database"},
		{OID: 1, Name: "template1", Owner: 10, Encoding: 6, LocProvider: 'i', IsTemplate: true, AllowConn: true, HasLoginEvent: true, ConnLimit: 3,
			LastSysOID: 13000, Tablespace: 1663, Collate: "en_US.UTF-8", Ctype: "en_US.UTF-8", Locale: "und", ICURules: "&a<b", CollVersion: "153.120",
			ACL: []string{"=c/postgres", "postgres=CTc/postgres"}},
		{OID: 4, Name: "empty acl", Owner: 10, Encoding: 8, ACL: []string{}},
	}
	langs := []wal.LanguageFacts{{OID: 12, Name: "internal", Owner: 10, Validate: 2246}, {OID: 13569, Name: "plpgsql", Owner: 10, IsPL: true, Trusted: true,
		CallFn: 13566, Inline: 13567, Validate: 13568, ACL: []string{"=U/postgres"}}}
	for i, before := range []bool{true, false, true, false} {
		sf := &wal.SchemaFacts{OwnerOID: 10, Owner: "postgres", NamespacesRead: before, SequencesRead: before, ViewsRead: before, StorageRead: before,
			Databases: dbs, DatabasesRead: true}
		if i >= 2 { // the languages too, the databases not from the fourth
			sf.Languages, sf.LanguagesRead = langs, true
			sf.Databases, sf.DatabasesRead = dbs[:3*(3-i)], i == 2
		}
		got := schemaRoundTrip(t, sf)
		if !got.Equal(sf) {
			t.Errorf("parts before read %v: decoded %+v, want %+v", before, got, sf)
		}
		if a := got.Databases; i < 3 && (len(a) != 3 || a[0].ACL != nil || a[2].ACL == nil) {
			t.Errorf("parts before read %v: NULL and empty ACLs: %+v", before, a)
		}
	}
	// A record written before the databases were read: the storage part
	// last; it decodes with them unread.
	sf := &wal.SchemaFacts{OwnerOID: 10, Owner: "postgres", NamespacesRead: true, StorageRead: true, UserFunctions: 2}
	if got := schemaRoundTrip(t, sf); got.DatabasesRead || got.LanguagesRead || !got.Equal(sf) {
		t.Errorf("without databases: %+v", got)
	}
}

// schemaRoundTrip encodes a relation carrying sf and decodes its schema
// facts.
func schemaRoundTrip(t *testing.T, sf *wal.SchemaFacts) *wal.SchemaFacts {
	t.Helper()
	rel := wal.Relation{OID: 7, Schema: "s", Name: "t", Columns: []wal.Column{{Name: "id", TypeOID: 23, TypeMod: -1, Key: true}},
		Facts: &wal.Facts{Kind: 'r', Columns: []wal.ColumnFacts{{NotNull: true}}, Schema: sf}}
	got, err := decodeRel(encodeRel(&rel))
	if err != nil {
		t.Fatal(err)
	}
	return got.Facts.Schema
}
