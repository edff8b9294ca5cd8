package replication

import (
	"strings"
	"testing"
)

// TestResolveStar: the publication "*" creates is marked as the
// sidecar's, and ResolveStar adds a table created later to it (not one
// without a key); a publication the user made is left as it is: "*"
// follows what it publishes, at the first start too (before, the start
// was refused), and reports the rest.
func TestResolveStar(t *testing.T) {
	t.Parallel()
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	mustExec(t, conn, "CREATE TABLE a (id int PRIMARY KEY)", "CREATE TABLE b (id int PRIMARY KEY)")
	pub, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "star", Tables: []string{"*"}})
	if err != nil || !pub.Created {
		t.Fatalf("create: %+v %v", pub, err)
	}
	if exists, managed, err := PublicationManaged(t.Context(), conn, "star"); !exists || !managed || err != nil {
		t.Fatalf("the sidecar's publication: exists %v managed %v %v", exists, managed, err)
	}
	mustExec(t, conn, "CREATE TABLE later (id int PRIMARY KEY)", "CREATE TABLE later_nokey (x int)")
	st, err := ResolveStar(t.Context(), conn, "star", false)
	if err != nil || tableNames(st.Followable) != "public.a, public.b" || len(st.Added) != 0 {
		t.Fatalf("without add: %+v %v", st, err)
	}
	st, err = ResolveStar(t.Context(), conn, "star", true)
	if err != nil || tableNames(st.Followable) != "public.a, public.b, public.later" || tableNames(st.Added) != "public.later" ||
		tableNames(st.WithoutKey) != "public.later_nokey" {
		t.Fatalf("with add: %+v %v", st, err)
	}
	// A restart (the publication exists) takes it as it is now.
	pub, err = EnsurePublication(t.Context(), conn, PublicationSpec{Name: "star", Tables: []string{"*"}})
	if err != nil || pub.Created || tableNames(pub.Tables) != "public.a, public.b, public.later" {
		t.Fatalf("existing: %+v %v", pub, err)
	}

	// The user's publication: never changed.
	mustExec(t, conn, "CREATE PUBLICATION mine FOR TABLE a")
	if _, managed, _ := PublicationManaged(t.Context(), conn, "mine"); managed {
		t.Fatal("the user's publication counts as the sidecar's")
	}
	pub, err = EnsurePublication(t.Context(), conn, PublicationSpec{Name: "mine", Tables: []string{"*"}})
	if err != nil || tableNames(pub.Tables) != "public.a" || tableNames(pub.NotPublished) != "public.b, public.later" {
		t.Fatalf("the user's publication: %+v %v", pub, err)
	}
	st, err = ResolveStar(t.Context(), conn, "mine", true)
	if err != nil || len(st.Added) != 0 || tableNames(st.Unpublished) != "public.b, public.later" {
		t.Fatalf("the user's publication, add: %+v %v", st, err)
	}
	mustExec(t, conn, "ALTER PUBLICATION mine ADD TABLE later")
	if st, err = ResolveStar(t.Context(), conn, "mine", true); err != nil || tableNames(st.Followable) != "public.a, public.later" {
		t.Fatalf("after the user added a table: %+v %v", st, err)
	}
	mustExec(t, conn, "CREATE PUBLICATION empty")
	if _, err := EnsurePublication(t.Context(), conn, PublicationSpec{Name: "empty", Tables: []string{"*"}}); err == nil ||
		!strings.Contains(err.Error(), "publishes no table") {
		t.Fatalf("a user's publication with no table: %v", err)
	}
}
