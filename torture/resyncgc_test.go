package torture

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// gcRetain is the rig's history.retain: short, so the daemon's GC
// (every 300 ms) expires versions all the time, and long enough that a
// check round reads versions before they expire.
const gcRetain = 20 * time.Second

// The kinds of TestResyncGCKillLoop: what is running when the SIGKILL
// comes.
const (
	killResync = "kill during a resync of public.bulk (POST /api/resync)"
	killSchema = "kill during a schema-change resync of the hostile table"
	killGC     = "kill during GC (POST /api/gc, history.retain 20s)"
	killOffGC  = "kill of an offline `sidecar gc`"
)

// probe is a counter value the test committed itself and the time just
// before its commit: its version committed after t, so it must outlive
// every GC before t+retain.
type probe struct {
	n int64
	t time.Time
}

// TestResyncGCKillLoop SIGKILLs the real sidecar binary during per-table
// resyncs (one requested through the API of a 60,000-row table, one
// forced by a schema change of the hostile table) and during GCs (the
// daemon's own every 300 ms with a 20 s retention, one requested through
// the API, the offline `sidecar gc`) under the write workload: 4 kills
// (one of each kind), 20 with -torture.long. After each kill a new
// sidecar must start, and with the workload paused the checks run through
// its API (liveChecker: verify equal, every table equal to PostgreSQL row
// by row, the counter consecutive over every retained version up to
// PostgreSQL's), and no version newer than the retention horizon is gone:
// every probe committed less than history.retain ago is still a version.
// At the end the stopped mirror is checked offline too.
func TestResyncGCKillLoop(t *testing.T) {
	seed := crashSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0x9c))
	fig := &figures{seed: seed, faults: map[string]int{}}
	r := newCrashRig(t, fig)
	exec(t, r.url, "CREATE TABLE bulk (id int8 PRIMARY KEY, pad text NOT NULL)",
		"INSERT INTO bulk SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, 60000) g")
	body, err := os.ReadFile(r.file)
	if err != nil {
		t.Fatal(err)
	}
	body = []byte(strings.Replace(string(body), "public.counter]", "public.counter, public.bulk]", 1))
	body = fmt.Appendf(body, "history:\n  retain: %s\n  gc_interval: 300ms\n", gcRetain)
	if err := os.WriteFile(r.file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	n := 1
	if *long {
		n = 5
	}
	var schedule []string
	for range n {
		schedule = append(schedule, killResync, killSchema, killGC, killOffGC)
	}
	rng.Shuffle(len(schedule), func(i, j int) { schedule[i], schedule[j] = schedule[j], schedule[i] })

	checker := &liveChecker{t: t, api: r.api, url: r.url, tables: []string{r.key, "public.counter", "public.bulk"}, fig: fig}
	var probes []probe
	var inside, expired int
	addedCols := 0
	check := func(c *child, after string) {
		t.Helper()
		waitReady(t, r.api, r.url, c.OutputTail)
		probes = append(probes, probeCommit(t, r.url))
		waitDurable(t, r.api, marker(t, r.url), c.OutputTail)
		now := time.Now()
		checker.since = 0 // every retained version: the GC moves the oldest
		bad := checker.check()
		for _, p := range probes {
			if p.t.After(now.Add(-gcRetain+time.Second)) && p.n < checker.oldest {
				bad = append(bad, fmt.Sprintf("the version with counter %d, committed after %s (less than %s before the check), is gone: the oldest retained has counter %d",
					p.n, p.t.Format(time.RFC3339Nano), gcRetain, checker.oldest))
			}
		}
		if len(bad) > 0 {
			t.Fatalf("seed %d: checks %s:\n%s\n%s", seed, after, strings.Join(bad, "\n"), c.OutputTail())
		}
		fig.checksPassed++
		expired += lastGCExpired(r.api)
	}

	c := r.start(kill9, false)
	if err := r.waitStreaming(c, 120*time.Second); err != nil {
		t.Fatal(err)
	}
	check(c, "after the first copy")
	wl := startLoad(r.url, r.hostile, r.col, rand.New(rand.NewPCG(seed+1, seed)), fig)
	defer wl.pause()
	for i, kind := range schedule {
		if err := r.waitStreaming(c, 120*time.Second); err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		probes = append(probes, probeCommit(t, r.url))
		// Some rows of bulk change, so its copies differ.
		exec(t, r.url, fmt.Sprintf("BEGIN; UPDATE counter SET n = n + 1 WHERE id = 1; UPDATE bulk SET pad = md5(pad) WHERE id %% 97 = %d; COMMIT", i%97))
		fig.txns.Add(1)
		delay := time.Duration(rng.IntN(1200)) * time.Millisecond
		in := false
		switch kind {
		case killResync, killSchema:
			table := "public.bulk"
			if kind == killResync {
				b, _ := json.Marshal(map[string][]string{"tables": {table}})
				if code, body := call("POST", r.api+"/api/resync", string(b)); code != http.StatusAccepted {
					t.Fatalf("kill %d: resync: %d %s", i, code, body)
				}
			} else {
				table = r.key
				// Add a column, or drop the last one added: a Relation
				// message that differs puts the table into a resync.
				if addedCols > 0 && rng.IntN(2) == 0 {
					exec(t, r.url, fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", r.hostile, pgx.Identifier{fmt.Sprintf("add %d", addedCols)}.Sanitize()))
					addedCols--
				} else {
					addedCols++
					exec(t, r.url, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s int DEFAULT %d", r.hostile, pgx.Identifier{fmt.Sprintf("add %d", addedCols)}.Sanitize(), addedCols))
				}
			}
			// Kill once the resync is under way, at a random moment in it.
			if !waitTableState(r.api, table, func(s string) bool { return s != "ready" }, 30*time.Second) {
				t.Logf("kill %d: %s never left ready within 30 s (the resync may have been quicker than the poll)", i, table)
			}
			time.Sleep(delay / 2)
			in = !waitTableState(r.api, table, func(s string) bool { return s == "ready" }, 0)
		case killGC:
			go call("POST", r.api+"/api/gc", "") // its answer does not matter: it is killed
			time.Sleep(delay / 4)
			in = true // the daemon also collects every 300 ms
		case killOffGC:
			if err := r.stop(c); err != nil {
				t.Fatalf("kill %d: %v", i, err)
			}
			c = r.startCmd("gc", "--config", r.file)
			time.Sleep(delay / 2)
			if _, exited := c.Exited(); !exited {
				in = true
			}
		}
		if kind == killOffGC && !in {
			if err, _ := c.Wait(0); err != nil { // it finished before the kill
				t.Fatalf("kill %d: the offline gc failed (%v):\n%s", i, err, c.OutputTail())
			}
		} else if err := r.kill(c, kill9); err != nil {
			t.Fatalf("kill %d (%s): %v", i, kind, err)
		}
		fig.faults[kind]++
		if in {
			inside++
		}
		c = r.start(kill9, false)
		if err := r.waitStreaming(c, 120*time.Second); err != nil {
			t.Fatalf("restart after kill %d (%s): %v", i, kind, err)
		}
		wl.pause()
		check(c, fmt.Sprintf("after kill %d (%s)", i, kind))
		wl.resume()
	}
	wl.pause()
	if err := r.stop(c); err != nil {
		t.Fatal(err)
	}
	fig.faults["of them with the resync or GC still running at the kill"] = inside
	fig.faults["versions expired by GC (sum over the checks' last_gc)"] = expired
	fig.versionsChecked = 0
	if bad := r.catchUpAndCheck(kill9); len(bad) > 0 {
		t.Fatalf("seed %d: %s", seed, strings.Join(bad, "\n"))
	}
	t.Logf("%d rounds of checks passed, %d counter versions counted in them", fig.checksPassed, fig.liveVersions)
	reportCrash(t, "resync and GC kills", fig)
}

// startCmd runs the real binary with args (not `run`) as a child.
func (r *crashRig) startCmd(args ...string) *child {
	r.t.Helper()
	return r.spawn(osexec.Command(r.sidecarBinary(), args...))
}

// probeCommit bumps the counter (as every transaction does) and returns
// its new value and the time before the commit.
func probeCommit(t *testing.T, url string) probe {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p := probe{t: time.Now()}
		err := queryRow(url, "UPDATE counter SET n = n + 1 WHERE id = 1 RETURNING n", nil, &p.n)
		if err == nil {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("probe: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitTableState polls the status until table's state satisfies ok
// (within 0: one look).
func waitTableState(api, table string, ok func(string) bool, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		var st struct {
			Tables []struct {
				Name  string `json:"name"`
				State string `json:"state"`
			} `json:"tables"`
		}
		if code, body := call("GET", api+"/api/status", ""); code == 200 && json.Unmarshal(body, &st) == nil {
			for _, ts := range st.Tables {
				if ts.Name == table && ok(ts.State) {
					return true
				}
			}
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lastGCExpired is the versions the daemon's last GC expired.
func lastGCExpired(api string) int {
	var st struct {
		History *struct {
			LastGC *struct {
				ExpiredVersions int `json:"expired_versions"`
			} `json:"last_gc"`
		} `json:"history"`
	}
	if code, body := call("GET", api+"/api/status", ""); code == 200 && json.Unmarshal(body, &st) == nil && st.History != nil && st.History.LastGC != nil {
		return st.History.LastGC.ExpiredVersions
	}
	return 0
}
