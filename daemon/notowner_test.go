package daemon

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// With tables ["*"] and the sidecar's own publication, a table created by
// another role cannot be added to the publication (the sidecar's role does
// not own it): ALTER PUBLICATION was tried every 2 s, with an error in
// PostgreSQL's log each time. It is listed not followed with the reason,
// and tried again rarely (after a minute, then longer).
func TestStarTableNotOwnedBacksOff(t *testing.T) {
	dbURL := pg.NewDB(t)
	role := strings.ToLower("r_" + strings.ReplaceAll(t.Name(), "/", "_"))
	execSQL(t, dbURL, fmt.Sprintf("CREATE ROLE %s LOGIN REPLICATION", role))
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dbURL)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		for _, s := range []string{"DROP OWNED BY " + role, "DROP ROLE " + role} {
			_, _ = conn.Exec(context.Background(), s)
		}
	})
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	execSQL(t, dbURL, fmt.Sprintf("GRANT CREATE ON DATABASE %s TO %s", strings.TrimPrefix(u.Path, "/"), role),
		"CREATE TABLE base (id int PRIMARY KEY, v text)", "INSERT INTO base VALUES (1, 'a'), (2, 'b')",
		"ALTER TABLE base OWNER TO "+role)
	u.User = url.User(role)
	roleURL := u.String()
	var logs syncBuilder
	logOnFailure(t, &logs)
	cfg := daemontest.Config(t, roleURL, []string{`'*'`})
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, dbURL, "UPDATE base SET v = 'm' WHERE id = 1"))

	table := "notmine_" + role
	execSQL(t, dbURL, fmt.Sprintf("CREATE TABLE %s (id int PRIMARY KEY)", table))
	errLine := fmt.Sprintf(`must be owner of table %s`, table)
	var last string
	daemontest.Eventually(t, "the table not owned listed not followed with the reason", 0, func() bool {
		i := slices.IndexFunc(r.status(t).NotFollowed, func(n NotFollowed) bool { return n.Table == "public."+table })
		if i < 0 {
			return false
		}
		last = r.status(t).NotFollowed[i].Reason
		return strings.Contains(last, errLine)
	}, func() string { return fmt.Sprintf("%+v", r.status(t).NotFollowed) })
	if !strings.Contains(last, "tried again after ") {
		t.Errorf("reason %q does not say when it is tried again", last)
	}
	// Over the next 10 s (five polls), no further attempt: PostgreSQL
	// logged the refusal once (twice at most, had a poll been under way).
	first := strings.Count(pg.ServerLog(), errLine)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r.waitDurable(t, marker(t, dbURL, "UPDATE base SET v = v || '.' WHERE id = 2"))
		time.Sleep(500 * time.Millisecond)
	}
	if n := strings.Count(pg.ServerLog(), errLine); n > 2 || n > first+1 {
		t.Errorf("ALTER PUBLICATION of a table the role does not own failed %d times in PostgreSQL's log (%d when first reported): not backed off", n, first)
	}
	if s := tableState(r.status(t), "public."+table); s != "" {
		t.Errorf("the table not owned is followed (%s)", s)
	}
}
