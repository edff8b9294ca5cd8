package daemon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// tableState is the state status reports for table ("" when absent).
func tableState(st Status, table string) string {
	for _, t := range st.Tables {
		if t.Name == table {
			return t.State
		}
	}
	return ""
}

// Issue 21 item 9: DROP TABLE of one followed table. The daemon served it
// as ready with no log line, and a restart refused to start until the
// config was edited. Now: logged at once, "dropped" in status and
// metrics, its history readable, the other table followed, and a restart
// starts (preflight warns).
func TestDroppedFollowedTable(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url,
		"CREATE TABLE keep (id int PRIMARY KEY, v text)", "INSERT INTO keep SELECT g, 'k' || g FROM generate_series(1, 50) g",
		"CREATE TABLE gone (id int PRIMARY KEY, v text)", "INSERT INTO gone SELECT g, 'g' || g FROM generate_series(1, 50) g")
	cfg := testConfig(t, url, "public.keep", "public.gone")
	var logs syncBuilder
	r := start(t, cfg, &logs)
	r.waitDurable(t, marker(t, url, "UPDATE gone SET v = 'x' WHERE id = 1"))
	r.waitDurable(t, marker(t, url, "UPDATE gone SET v = 'y' WHERE id = 2"))

	execSQL(t, url, "DROP TABLE gone")
	daemontest.Eventually(t, "a dropped table reported", 0,
		func() bool { return tableState(r.status(t), "public.gone") == "dropped" },
		func() string { return fmt.Sprintf("%+v\n%s", r.status(t).Tables, logs.String()) })
	if !strings.Contains(logs.String(), "followed table dropped in PostgreSQL") || !strings.Contains(logs.String(), "public.gone") {
		t.Errorf("no log line for the dropped table:\n%s", logs.String())
	}
	if _, m := httpGet(t, r.addr+"/metrics"); !strings.Contains(m, `sidecar_table_dropped{table="public.gone"} 1`) {
		t.Errorf("/metrics lacks the dropped table")
	}
	if st := tableState(r.status(t), "public.keep"); st != "ready" {
		t.Errorf("the other table is %q", st)
	}
	// Its history stays readable; the other table is followed.
	if code, b := httpGet(t, r.addr+"/api/get?table=public.gone&pk=2"); code != 200 || !strings.Contains(b, `"v":"y"`) {
		t.Errorf("get from the dropped table: %d %s", code, b)
	}
	r.waitDurable(t, marker(t, url, "UPDATE keep SET v = 'z' WHERE id = 3"))
	if code, b := httpGet(t, r.addr+"/api/get?table=public.keep&pk=3"); code != 200 || !strings.Contains(b, `"v":"z"`) {
		t.Errorf("get from the followed table: %d %s", code, b)
	}
	// A verification of the whole mirror compares the tables that exist.
	if code, b := postVerify(t, r.addr); code != 200 || !strings.Contains(b, `"equal"`) || strings.Contains(b, "public.gone") {
		t.Errorf("verify after the drop: %d %s", code, b)
	}

	// A restart starts (preflight warns) and reports it dropped again.
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	var logs2 syncBuilder
	r2 := start(t, cfg, &logs2)
	if st := tableState(r2.status(t), "public.gone"); st != "dropped" {
		t.Errorf("after a restart the dropped table is %q", st)
	}
	if !strings.Contains(logs2.String(), "does not exist any more, but the mirror holds it") {
		t.Errorf("no preflight warning at restart:\n%s", logs2.String())
	}
	r2.waitDurable(t, marker(t, url, "UPDATE keep SET v = 'w' WHERE id = 4"))
	if code, b := httpGet(t, r2.addr+"/api/get?table=public.gone&pk=1"); code != 200 || !strings.Contains(b, `"v":"x"`) {
		t.Errorf("get from the dropped table after a restart: %d %s", code, b)
	}

	// A configured table the mirror never held still fails the start.
	if err := r2.stop(); err != nil {
		t.Fatal(err)
	}
	cfg2 := *cfg
	cfg2.Tables = append(cfg2.Tables, "public.never")
	if err := runRefused(t, Options{Config: &cfg2}); err == nil || !strings.Contains(err.Error(), "never") {
		t.Errorf("a missing table the mirror never held: %v", err)
	}
}
