package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
)

// TestStarKeysQuotedTablesAcrossRestart follows, with tables ["*"], a table
// whose schema holds a dot, a decoy that splitting its name at the first
// dot would give ("Mixed"."Case.Odd Name"), and a mixed-case public table.
// At the restart the table list comes from the mirror's keys, so each key
// must split back into its own table; then a resync by the name status
// lists must copy that table, and every table must equal PostgreSQL's.
func TestStarKeysQuotedTablesAcrossRestart(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		`CREATE SCHEMA "Mixed.Case"`,
		`CREATE SCHEMA "Mixed"`,
		`CREATE TABLE "Mixed.Case"."Odd Name" (id int PRIMARY KEY, v text)`,
		`CREATE TABLE "Mixed"."Case.Odd Name" (id int PRIMARY KEY, v text)`,
		`CREATE TABLE "Plain" (id int PRIMARY KEY, v text)`,
		`INSERT INTO "Mixed.Case"."Odd Name" SELECT g, 'odd ' || g FROM generate_series(1, 100) g`,
		`INSERT INTO "Mixed"."Case.Odd Name" SELECT g, 'decoy ' || g FROM generate_series(1, 40) g`,
		`INSERT INTO "Plain" SELECT g, 'plain ' || g FROM generate_series(1, 10) g`,
	)
	const odd = `"Mixed.Case"."Odd Name"`
	// key (canonical name) -> the table in SQL (the same text here)
	tables := []string{odd, `"Mixed"."Case.Odd Name"`, `public."Plain"`}
	cfg := testConfig(t, url, `'*'`)
	var logs syncBuilder
	r := start(t, cfg, &logs)
	st := r.waitDurable(t, marker(t, url, `UPDATE "Mixed.Case"."Odd Name" SET v = 'first' WHERE id = 1`))
	states := map[string]string{}
	for _, ts := range st.Tables {
		states[ts.Name] = ts.State
	}
	if want := map[string]string{tables[0]: "ready", tables[1]: "ready", tables[2]: "ready"}; !maps.Equal(states, want) {
		t.Fatalf("status tables %v, want %v", states, want)
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}

	r = start(t, cfg, &logs) // the table list comes from the mirror's keys now
	execSQL(t, url,
		`DELETE FROM "Mixed.Case"."Odd Name" WHERE id > 50`,
		`UPDATE "Mixed"."Case.Odd Name" SET v = 'decoy changed' WHERE id % 3 = 0`,
		`INSERT INTO "Plain" VALUES (11, 'eleven')`)
	r.waitDurable(t, marker(t, url, `UPDATE "Plain" SET v = 'second' WHERE id = 1`))

	body, _ := json.Marshal(ResyncRequest{Tables: []string{odd}})
	resp, err := http.Post(r.addr+"/api/resync", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var marked ResyncRequest
	err = json.NewDecoder(resp.Body).Decode(&marked)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted || !slices.Equal(marked.Tables, []string{odd}) {
		t.Fatalf("POST /api/resync %s: %d %+v %v", odd, resp.StatusCode, marked, err)
	}
	daemontest.Eventually(t, "the resync of "+odd, 0, func() bool {
		st = r.waitDurable(t, marker(t, url, `UPDATE "Mixed.Case"."Odd Name" SET v = 'after' WHERE id = 2`))
		i := slices.IndexFunc(st.Tables, func(ts TableStatus) bool { return ts.Name == odd })
		return i >= 0 && st.Tables[i].State == "ready" && st.Tables[i].CopiedAt != "" && strings.Contains(logs.String(), "resync done")
	}, func() string { return fmt.Sprintf("%+v\n%s", st.Tables, logs.String()) })
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range tables {
		_, got := mirrortest.MirrorRows(t, cfg.DataDir, tbl)
		if want := mirrortest.PGRows(t, url, tbl); !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: mirror %d rows, PostgreSQL %d; they differ", tbl, len(got), len(want))
		}
	}
}
