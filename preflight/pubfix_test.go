package preflight

import (
	"strings"
	"testing"
)

// TestPublicationFixComplete: a role that lacks CREATE on the database and
// owns only one of the two followed tables is told both at once, and the
// one fix printed, applied literally by an administrator, makes the
// publication checks pass (the first fix used to be only GRANT CREATE,
// after which check asked for ownership; and the ownership fix listed only
// the tables not owned, so the publication it created missed the others).
func TestPublicationFixComplete(t *testing.T) {
	url := pg.NewDB(t)
	role := newRole(t, url, "NOSUPERUSER REPLICATION")
	exec(t, url, "CREATE TABLE a (id int PRIMARY KEY)", "CREATE TABLE b (id int PRIMARY KEY)",
		"GRANT SELECT ON a, b TO "+role, "ALTER TABLE a OWNER TO "+role)
	p := Params{URL: withUser(url, role, ""), Tables: []string{"a", "b"}, Publication: "sidecar", Slot: "sidecar"}

	c := find(t, Run(t.Context(), p), "publication_privilege")
	if c.Status != Fail || !strings.Contains(c.Detail, "lacks CREATE on database") || !strings.Contains(c.Detail, "does not own public.b") ||
		strings.Contains(c.Detail, "public.a") {
		t.Fatalf("publication_privilege = %+v; want both problems named, and only public.b as not owned", c)
	}
	_, sql, ok := strings.Cut(c.Fix, ": ")
	if !ok {
		sql = c.Fix
	}
	sql, _, _ = strings.Cut(sql, "; (")
	exec(t, url, sql) // as the superuser the test connects as
	r := Run(t.Context(), p)
	for _, name := range []string{"publication_privilege", "publication"} {
		if c := find(t, r, name); c.Status != OK {
			t.Errorf("after applying %q: %s = %+v", sql, name, c)
		}
	}
}

// TestPublicationPrivilegeOnlyCreate: a role owning every table and lacking
// only CREATE on the database is told to get exactly that.
func TestPublicationPrivilegeOnlyCreate(t *testing.T) {
	c := checkPublicationPrivilege(serverFacts{publicationName: "sidecar", role: "rep", database: "app"}, false, false,
		[]tableFacts{{qualified: "public.a", found: true, hasPK: true, owned: true}})
	if c.Status != Fail || c.Fix != `GRANT CREATE ON DATABASE app TO rep;` || strings.Contains(c.Detail, "own") {
		t.Errorf("only CREATE missing: %+v", c)
	}
}
