package preflight

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// seedFlag replays a failing random test: go test ./preflight -run X -seed N.
var seedFlag = seed.Flag()

var pg *pgtest.Cluster

func TestMain(m *testing.M) {
	os.Exit(pgtest.RunMain(m, pgtest.Options{}, func(c *pgtest.Cluster) { pg = c }))
}

// exec runs statements on url, failing the test on error (the rig's
// daemontest.Exec: a connection of its own, not t.Context, which is
// already cancelled when cleanups run).
func exec(t *testing.T, url string, stmts ...string) {
	t.Helper()
	daemontest.Exec(t, url, stmts...)
}

// find returns the check named name, failing the test when there is none.
func find(t *testing.T, r Report, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in report:\n%s", name, text(t, r))
	return Check{}
}

func text(t *testing.T, r Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// withUser returns url with its user replaced (and an optional password).
func withUser(url, user, password string) string {
	cred := user
	if password != "" {
		cred += ":" + password
	}
	return strings.Replace(url, "postgres://postgres@", "postgres://"+cred+"@", 1)
}

func TestGoodClusterIsReady(t *testing.T) {
	url := pg.NewDB(t)
	exec(t, url, "CREATE TABLE items (id int PRIMARY KEY, name text)")
	r := Run(t.Context(), Params{URL: url, Tables: []string{"public.items"}, Publication: "sidecar", Slot: "sidecar"})
	out := text(t, r)
	t.Logf("report:\n%s", out)
	if !r.Ready() {
		t.Fatalf("good cluster not ready:\n%s", out)
	}
	for _, c := range r.Checks {
		if c.Status != OK {
			t.Errorf("check %s = %s on a good cluster: %s", c.Name, c.Status, c.Detail)
		}
	}
	for _, name := range []string{"connection", "server_version", "wal_level", "replication_role", "replication_connection",
		"replication_slots", "wal_senders", "table public.items", "publication_privilege", "publication", "slot"} {
		find(t, r, name)
	}
	if !strings.Contains(out, "OK   wal_level: wal_level = logical\n") || !strings.HasSuffix(out, "ready (0 warning(s))\n") {
		t.Errorf("unexpected text report:\n%s", out)
	}
}

func TestReplicaClusterFails(t *testing.T) {
	c, err := pgtest.Start(t.Context(), pgtest.Options{
		WALLevel: "replica",
		Settings: map[string]string{"max_replication_slots": "1", "max_wal_senders": "1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	exec(t, c.URL("postgres"),
		"CREATE TABLE items (id int PRIMARY KEY)",
		"SELECT pg_create_physical_replication_slot('standby')")
	r := Run(t.Context(), Params{URL: c.URL("postgres"), Tables: []string{"items"}, Publication: "sidecar", Slot: "sidecar"})
	out := text(t, r)
	t.Logf("report:\n%s", out)
	if r.Ready() {
		t.Fatalf("wal_level=replica cluster reported ready:\n%s", out)
	}
	wl := find(t, r, "wal_level")
	if wl.Status != Fail || !strings.Contains(wl.Detail, "replica") || !strings.Contains(wl.Fix, "ALTER SYSTEM SET wal_level = logical") {
		t.Errorf("wal_level check = %+v", wl)
	}
	if !strings.Contains(out, "FAIL wal_level: wal_level = replica, but logical decoding needs wal_level = logical. Fix: ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL\n") {
		t.Errorf("text lacks the wal_level line:\n%s", out)
	}
	if s := find(t, r, "replication_slots"); s.Status != Fail || !strings.Contains(s.Fix, "max_replication_slots = 3") {
		t.Errorf("replication_slots with 0 free = %+v", s)
	}
	if s := find(t, r, "wal_senders"); s.Status != Warn {
		t.Errorf("wal_senders with 1 free = %+v, want a warning", s)
	}
	for _, c := range r.Checks {
		if c.Name == "replication_connection" {
			t.Errorf("replication connection attempted on a wal_level=replica server: %+v", c)
		}
	}

	// Doing what the fixes say, literally, makes the server ready.
	var fixes []string
	for _, name := range []string{"wal_level", "replication_slots", "wal_senders"} {
		sql, _, ok := strings.Cut(find(t, r, name).Fix, "; then restart PostgreSQL")
		if !ok {
			t.Fatalf("%s fix does not say to restart: %q", name, find(t, r, name).Fix)
		}
		fixes = append(fixes, sql)
	}
	exec(t, c.URL("postgres"), fixes...)
	if err := c.Restart(t.Context()); err != nil {
		t.Fatal(err)
	}
	p := Params{URL: c.URL("postgres"), Tables: []string{"items"}, Publication: "sidecar", Slot: "sidecar"}
	r = Run(t.Context(), p)
	for _, c := range r.Checks {
		if c.Status != OK {
			t.Errorf("after applying the fixes %q: %s %s: %s", fixes, c.Status, c.Name, c.Detail)
		}
	}

	// A slot that lost its WAL fails, and its fix is the way back.
	exec(t, c.URL("postgres"),
		"ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'",
		"SELECT pg_reload_conf()",
		"SELECT pg_create_logical_replication_slot('sidecar', 'pgoutput')")
	lost := false
	for i := 0; i < 10 && !lost; i++ {
		exec(t, c.URL("postgres"), "INSERT INTO items SELECT g FROM generate_series(1, 1000) g ON CONFLICT DO NOTHING",
			"SELECT pg_switch_wal()", "INSERT INTO items VALUES (-1) ON CONFLICT DO NOTHING", "SELECT pg_switch_wal()", "CHECKPOINT")
		lost = find(t, Run(t.Context(), p), "slot").Status == Fail
	}
	if !lost {
		t.Fatalf("could not make slot lose its WAL:\n%s", text(t, Run(t.Context(), p)))
	}
	s := find(t, Run(t.Context(), p), "slot")
	if !strings.Contains(s.Detail, "wal_status = lost") || !strings.Contains(s.Fix, "SELECT pg_drop_replication_slot('sidecar');") {
		t.Errorf("lost slot check = %+v", s)
	}
	sql, _, _ := strings.Cut(s.Fix, " then ")
	sql = strings.TrimPrefix(sql, "start over with a fresh copy: ")
	exec(t, c.URL("postgres"), sql)
	if s := find(t, Run(t.Context(), p), "slot"); s.Status != OK {
		t.Errorf("after %q: slot = %+v", sql, s)
	}
}

func TestTables(t *testing.T) {
	url := pg.NewDB(t)
	exec(t, url,
		"CREATE TABLE items (id int PRIMARY KEY)",
		"CREATE TABLE nopk (id int, v text)",
		"CREATE TABLE uniq (id int NOT NULL, v text)",
		"CREATE UNIQUE INDEX uniq_id ON uniq (id)",
		"CREATE TABLE ident (id int NOT NULL)",
		"CREATE UNIQUE INDEX ident_id ON ident (id)",
		"ALTER TABLE ident REPLICA IDENTITY USING INDEX ident_id",
		"CREATE TABLE nothing (id int PRIMARY KEY)",
		"ALTER TABLE nothing REPLICA IDENTITY NOTHING",
		"CREATE TABLE full_nopk (id int)",
		"ALTER TABLE full_nopk REPLICA IDENTITY FULL",
		"CREATE VIEW v AS SELECT * FROM items",
		`CREATE SCHEMA "Odd Schema"`,
		`CREATE TABLE "Odd Schema"."My.Table" (id int PRIMARY KEY)`,
		"CREATE TABLE parted (id int PRIMARY KEY) PARTITION BY RANGE (id)",
		"CREATE TABLE Été (id int PRIMARY KEY)", // UTF-8: only A-Z fold, the table is "Été"
		// Partitions do not inherit their root's REPLICA IDENTITY.
		"CREATE TABLE fparted (id int) PARTITION BY RANGE (id)",
		"CREATE TABLE fparted_1 PARTITION OF fparted FOR VALUES FROM (0) TO (10)",
		"CREATE TABLE fparted_2 PARTITION OF fparted FOR VALUES FROM (10) TO (20)",
		"ALTER TABLE fparted REPLICA IDENTITY FULL",
		"ALTER TABLE fparted_2 REPLICA IDENTITY FULL",
		"CREATE TABLE fpok (id int) PARTITION BY RANGE (id)",
		"CREATE TABLE fpok_1 PARTITION OF fpok FOR VALUES FROM (0) TO (10)",
		"ALTER TABLE fpok REPLICA IDENTITY FULL",
		"ALTER TABLE fpok_1 REPLICA IDENTITY FULL",
	)
	cases := []struct {
		name    string // as configured
		check   string // check name
		status  Status
		mention string // in Detail or Fix
	}{
		{"public.items", "table public.items", OK, "primary key"},
		{"items", "table public.items", OK, "primary key"},
		{"PUBLIC.ITEMS", "table public.items", OK, "primary key"},
		{"public.nopk", "table public.nopk", Fail, "ALTER TABLE public.nopk ADD PRIMARY KEY"},
		{"public.nopk", "table public.nopk", Fail, "ALTER TABLE public.nopk REPLICA IDENTITY FULL"},
		{"public.uniq", "table public.uniq", Fail, "ALTER TABLE public.uniq REPLICA IDENTITY USING INDEX uniq_id"},
		{"public.ident", "table public.ident", OK, "ident_id"},
		{"public.nothing", "table public.nothing", Fail, "REPLICA IDENTITY DEFAULT"},
		{"public.full_nopk", "table public.full_nopk", OK, "multiset"},
		{"public.v", "table public.v", Fail, "view"},
		{"public.missing", "table public.missing", Fail, "does not exist"},
		{"nosuchschema.items", "table nosuchschema.items", Fail, "does not exist"},
		{`"Odd Schema"."My.Table"`, `table "Odd Schema"."My.Table"`, OK, "primary key"},
		{"public.parted", "table public.parted", OK, "primary key"},
		{"Été", `table public."Été"`, OK, "primary key"},
		{"public.fparted", "table public.fparted", Fail, "ALTER TABLE public.fparted_1 REPLICA IDENTITY FULL;"},
		{"public.fpok", "table public.fpok", OK, "multiset"},
		{`public.x'); DROP TABLE items; --`, `table public.x'); DROP TABLE items; --`, Fail, "not a plain identifier"},
		{`"x""; DROP TABLE items; --"`, `table public."x""; DROP TABLE items; --"`, Fail, "does not exist"},
		{`"a".b.c`, `table "a".b.c`, Fail, "schema.table"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Run(t.Context(), Params{URL: url, Tables: []string{tc.name}})
			c := find(t, r, tc.check)
			if c.Status != tc.status || !strings.Contains(c.Detail+" "+c.Fix, tc.mention) {
				t.Errorf("got %s: %s (fix: %s); want %s mentioning %q", c.Status, c.Detail, c.Fix, tc.status, tc.mention)
			}
			if r.Ready() != (tc.status != Fail) {
				t.Errorf("Ready = %v with a %s table check", r.Ready(), tc.status)
			}
		})
	}
	// The hostile names did nothing.
	r := Run(t.Context(), Params{URL: url, Tables: []string{"public.items"}})
	if c := find(t, r, "table public.items"); c.Status != OK {
		t.Errorf("items after hostile names: %+v", c)
	}
	// A missing table the mirror holds was dropped after it was followed:
	// a warning, so the daemon starts (issue 21 item 9).
	r = Run(t.Context(), Params{URL: url, Tables: []string{"public.items", "Missing"}, Known: []string{"public.items", "public.missing"}})
	if c := find(t, r, "table public.missing"); c.Status != Warn || c.Absent != "public.missing" || !strings.Contains(c.Detail, "dropped") || !r.Ready() {
		t.Errorf("a dropped table the mirror holds: %+v (ready %v)", c, r.Ready())
	}
}

func TestAllTablesWarnsOnKeyless(t *testing.T) {
	url := pg.NewDB(t)
	exec(t, url,
		"CREATE TABLE items (id int PRIMARY KEY)",
		"CREATE TABLE logs (line text)",
		"CREATE TABLE events (line text)",
		"ALTER TABLE events REPLICA IDENTITY FULL",
		"CREATE TABLE parted (id int PRIMARY KEY) PARTITION BY RANGE (id)",
		"CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (10)")
	r := Run(t.Context(), Params{URL: url, Tables: []string{"*"}, Publication: "sidecar"})
	if !r.Ready() {
		t.Fatalf(`tables=["*"] with a keyless table should only warn:\n%s`, text(t, r))
	}
	if c := find(t, r, "tables"); c.Status != OK || !strings.Contains(c.Detail, "3 of 4") {
		t.Errorf("tables summary = %+v, want 3 of 4 (items, events (FULL), parted; partitions excluded)", c)
	}
	if c := find(t, r, "table public.logs"); c.Status != Warn || !strings.Contains(c.Fix, "ALTER TABLE public.logs ADD PRIMARY KEY") ||
		!strings.Contains(c.Fix, "ALTER TABLE public.logs REPLICA IDENTITY FULL") {
		t.Errorf("keyless table = %+v", c)
	}
	for _, c := range r.Checks {
		if strings.Contains(c.Name, "parted_1") {
			t.Errorf("a partition is listed on its own: %+v", c)
		}
	}
}

// newRole creates a login role for the test and drops it (and its grants in
// db) at cleanup.
func newRole(t *testing.T, dbURL, attrs string) string {
	t.Helper()
	role := strings.ToLower(fmt.Sprintf("r_%s", strings.NewReplacer("/", "_", "#", "_").Replace(t.Name())))
	exec(t, dbURL, fmt.Sprintf("CREATE ROLE %s LOGIN %s", role, attrs))
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dbURL)
		if err != nil {
			t.Errorf("drop role %s: %v", role, err)
			return
		}
		defer conn.Close(context.Background())
		for _, s := range []string{"DROP OWNED BY " + role, "DROP ROLE " + role} {
			if _, err := conn.Exec(context.Background(), s); err != nil {
				t.Errorf("%s: %v", s, err)
			}
		}
	})
	return role
}

func TestRolePrivileges(t *testing.T) {
	url := pg.NewDB(t)
	role := newRole(t, url, "NOSUPERUSER")
	exec(t, url, "CREATE TABLE items (id int PRIMARY KEY)")
	p := Params{URL: withUser(url, role, ""), Tables: []string{"public.items"}, Publication: "sidecar", Slot: "sidecar"}

	r := Run(t.Context(), p)
	if r.Ready() {
		t.Fatalf("role without privileges reported ready:\n%s", text(t, r))
	}
	if c := find(t, r, "replication_role"); c.Status != Fail || c.Fix != "ALTER ROLE "+role+" WITH REPLICATION;" {
		t.Errorf("replication_role = %+v", c)
	}
	if c := find(t, r, "table public.items"); c.Status != Fail || !strings.Contains(c.Fix, "GRANT SELECT ON public.items TO "+role) {
		t.Errorf("unreadable table = %+v", c)
	}
	// Both what it lacks are named at once (issue 25: the first fix was
	// incomplete).
	if c := find(t, r, "publication_privilege"); c.Status != Fail || !strings.Contains(c.Detail, "lacks CREATE on database") ||
		!strings.Contains(c.Detail, "does not own public.items") {
		t.Errorf("publication_privilege without CREATE or ownership = %+v", c)
	}

	db := url[strings.LastIndex(url, "/")+1 : strings.Index(url, "?")]
	exec(t, url, "ALTER ROLE "+role+" WITH REPLICATION", "GRANT SELECT ON items TO "+role, "GRANT CREATE ON DATABASE "+db+" TO "+role)
	r = Run(t.Context(), p)
	if c := find(t, r, "replication_role"); c.Status != OK {
		t.Errorf("replication_role after GRANT = %+v", c)
	}
	if c := find(t, r, "replication_connection"); c.Status != OK {
		t.Errorf("replication_connection with REPLICATION = %+v", c)
	}
	if c := find(t, r, "publication_privilege"); c.Status != Fail || !strings.Contains(c.Detail, "does not own public.items") ||
		!strings.Contains(c.Fix, "CREATE PUBLICATION sidecar FOR TABLE public.items") {
		t.Errorf("publication_privilege without ownership = %+v", c)
	}

	exec(t, url, "ALTER TABLE items OWNER TO "+role)
	r = Run(t.Context(), p)
	if !r.Ready() {
		t.Errorf("role with REPLICATION, CREATE and ownership not ready:\n%s", text(t, r))
	}
}

func TestPublication(t *testing.T) {
	url := pg.NewDB(t)
	exec(t, url,
		"CREATE TABLE a (id int PRIMARY KEY)",
		"CREATE TABLE b (id int PRIMARY KEY)",
		"CREATE PUBLICATION only_a FOR TABLE a",
		"CREATE PUBLICATION inserts FOR TABLE a, b WITH (publish = 'insert')",
		"CREATE PUBLICATION everything FOR ALL TABLES")
	cases := []struct {
		pub     string
		status  Status
		mention string
	}{
		{"only_a", Fail, "ALTER PUBLICATION only_a ADD TABLE public.b;"},
		{"inserts", Fail, "SET (publish = 'insert, update, delete, truncate')"},
		{"everything", OK, "FOR ALL TABLES"},
		{"absent", OK, "creates it"},
	}
	for _, tc := range cases {
		t.Run(tc.pub, func(t *testing.T) {
			r := Run(t.Context(), Params{URL: url, Tables: []string{"a", "b"}, Publication: tc.pub})
			c := find(t, r, "publication")
			if c.Status != tc.status || !strings.Contains(c.Detail+" "+c.Fix, tc.mention) {
				t.Errorf("publication %s = %+v; want %s mentioning %q", tc.pub, c, tc.status, tc.mention)
			}
		})
	}
}

func TestSlot(t *testing.T) {
	url, other := pg.NewDB(t), pg.NewDB(t)
	exec(t, url,
		"CREATE TABLE items (id int PRIMARY KEY)",
		"SELECT pg_create_logical_replication_slot('good', 'pgoutput')",
		"SELECT pg_create_logical_replication_slot('decoding', 'test_decoding')",
		"SELECT pg_create_physical_replication_slot('phys')")
	// A physical slot belongs to no database: NewDB's cleanup, which
	// drops the database's slots, leaves it (a second run, -count=2,
	// would find it).
	t.Cleanup(func() { exec(t, url, "SELECT pg_drop_replication_slot('phys')") })
	exec(t, other, "SELECT pg_create_logical_replication_slot('elsewhere', 'pgoutput')")
	cases := []struct {
		slot    string
		status  Status
		mention string
	}{
		{"good", OK, "resumes"},
		{"absent", OK, "creates it"},
		{"decoding", Fail, "test_decoding"},
		{"phys", Fail, "physical"},
		{"elsewhere", Fail, "belongs to database"},
	}
	for _, tc := range cases {
		t.Run(tc.slot, func(t *testing.T) {
			r := Run(t.Context(), Params{URL: url, Tables: []string{"items"}, Slot: tc.slot})
			c := find(t, r, "slot")
			if c.Status != tc.status || !strings.Contains(c.Detail+" "+c.Fix, tc.mention) {
				t.Errorf("slot %s = %+v; want %s mentioning %q", tc.slot, c, tc.status, tc.mention)
			}
		})
	}
}

// TestPasswordNeverReported connects in ways that fail, each with a password
// in the connection string, and checks the password appears nowhere in the
// report, as text or JSON.
func TestPasswordNeverReported(t *testing.T) {
	const pw = "Sup3r-Secret_pw"
	url := pg.NewDB(t)
	role := newRole(t, url, "PASSWORD '"+pw+"'")

	// Make the harness ask this role for its password (it trusts everyone
	// else); the first matching pg_hba.conf line wins.
	hba := filepath.Join(pg.Dir(), "data", "pg_hba.conf")
	orig, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("host all %s 127.0.0.1/32 scram-sha-256\n", role)
	if err := os.WriteFile(hba, append([]byte(line), orig...), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(hba, orig, 0o600); err != nil {
			t.Error(err)
		}
		exec(t, url, "SELECT pg_reload_conf()")
	})
	exec(t, url, "SELECT pg_reload_conf()")

	good := withUser(url, role, pw)
	r := Run(t.Context(), Params{URL: good, Tables: []string{"*"}})
	if c := find(t, r, "connection"); c.Status != OK {
		t.Fatalf("the right password does not connect (test setup): %+v", c)
	}

	port := fmt.Sprint(pg.Port())
	cases := map[string]string{
		"wrong password":     withUser(url, role, pw+"x"),
		"closed port":        strings.Replace(good, ":"+port+"/", ":1/", 1),
		"bad port":           strings.Replace(good, ":"+port+"/", ":notaport/", 1),
		"unknown host":       strings.Replace(good, "127.0.0.1", "no-such-host.invalid", 1),
		"keyword form":       fmt.Sprintf("host=127.0.0.1 port=1 user=%s password=%s dbname=x connect_timeout=2", role, pw),
		"keyword form bad":   fmt.Sprintf("host=127.0.0.1 port=x user=%s password='%s' dbname=x", role, pw),
		"password parameter": fmt.Sprintf("postgres://%s@127.0.0.1:1/x?password=%s&connect_timeout=2", role, pw),
		"escaped password":   withUser(url, role, "p%40ss"+pw),
	}
	for name, u := range cases {
		t.Run(name, func(t *testing.T) {
			r := Run(t.Context(), Params{URL: u, Tables: []string{"*"}, Publication: "p", Slot: "s"})
			if r.Ready() {
				t.Fatalf("failed connection reported ready")
			}
			c := find(t, r, "connection")
			if c.Status != Fail || c.Fix == "" {
				t.Errorf("connection check = %+v", c)
			}
			js, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			for _, out := range []string{text(t, r), string(js)} {
				if strings.Contains(out, pw) {
					t.Errorf("password in report:\n%s", out)
				}
			}
			t.Log(c.Detail)
		})
	}
}

// TestRandomPasswordsNeverReported is a property test: whatever characters
// a password has, in URL or keyword/value form, valid or not, it does not
// reach the report.
func TestRandomPasswordsNeverReported(t *testing.T) {
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 0))
	const chars = `abcXYZ019 @:/?#%&='"\;$!~.-_` + "é"
	for i := 0; i < 40; i++ {
		var b strings.Builder
		for n := 8 + rng.IntN(12); b.Len() < n; {
			r := []rune(chars)
			b.WriteRune(r[rng.IntN(len(r))])
		}
		pw := b.String()
		u := url.URL{Scheme: "postgres", User: url.UserPassword("u", pw), Host: "127.0.0.1:1", Path: "/db", RawQuery: "connect_timeout=2"}
		kw := "host=127.0.0.1 port=1 user=u dbname=db connect_timeout=2 password='" +
			strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
		for _, conn := range []string{u.String(), kw, strings.Replace(u.String(), ":1/", ":bad/", 1), strings.Replace(kw, "port=1", "port=bad", 1)} {
			r := Run(t.Context(), Params{URL: conn, Tables: []string{"*"}})
			js, _ := json.Marshal(r)
			for _, out := range []string{text(t, r), string(js)} {
				if strings.Contains(out, pw) {
					t.Fatalf("seed %d: password %q in report for %q:\n%s", seed, pw, conn, out)
				}
			}
			if r.Ready() {
				t.Fatalf("seed %d: connection to port 1 reported ready", seed)
			}
		}
	}
}
