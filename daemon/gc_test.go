package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/mirror"
)

func postJSON(t *testing.T, url string, body any, out any) int {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode < 300 {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// scanAPI reads a table at a ref through GET /api/scan: id → x.
func scanAPI(t *testing.T, base, table, ref string) (int, map[string]string) {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/api/scan?table=%s&as_of=%s", base, table, ref))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	for i := 0; sc.Scan(); i++ {
		if i == 0 {
			continue // the header
		}
		var row map[string]*string
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("scan line %q: %v", sc.Text(), err)
		}
		out[*row["id"]] = *row["x"]
	}
	return resp.StatusCode, out
}

// TestAutoGCExpiresHistoryBesideStreaming runs the daemon with a short
// history.retain and gc_interval while writes stream in: GC runs by
// itself, versions older than retain are refused by ref, a tagged old
// version still reads exactly what PostgreSQL held then, POST /api/gc
// answers, and the mirror equals PostgreSQL at the end.
func TestAutoGCExpiresHistoryBesideStreaming(t *testing.T) {
	url := pg.NewDB(t)
	execSQL(t, url, "CREATE TABLE g (id int PRIMARY KEY, x text)", "INSERT INTO g SELECT i, 'x' || i FROM generate_series(1, 300) i")
	cfg := testConfig(t, url, "public.g")
	cfg.History.Retain = 2 * time.Second
	cfg.History.GCInterval = 250 * time.Millisecond
	logs := &syncBuilder{}
	r := startOpts(t, Options{Config: cfg, Mirror: func(o *mirror.Options) { o.GroupMaxAge = 100 * time.Millisecond }}, logs)
	r.waitDurable(t, marker(t, url, "UPDATE g SET x = 'copied' WHERE id = 1")) // may be in the copy
	r.waitDurable(t, marker(t, url, "UPDATE g SET x = 'early' WHERE id = 1"))
	var early map[string]any
	if code, body := httpGet(t, r.addr+"/api/resolve?ref=HEAD"); code != 200 || json.Unmarshal([]byte(body), &early) != nil {
		t.Fatalf("resolve HEAD: %d %s", code, body)
	}
	earlyLSN := fmt.Sprint(early["lsn"])
	// Commit groups close between them and the tag, so the tag's island
	// (its group base and after) does not reach back to the early version.
	for i := range 3 {
		time.Sleep(300 * time.Millisecond)
		r.waitDurable(t, marker(t, url, fmt.Sprintf("UPDATE g SET x = 'between%d' WHERE id = 1", i)))
	}
	time.Sleep(300 * time.Millisecond)
	r.waitDurable(t, marker(t, url, "UPDATE g SET x = 'tagged' WHERE id = 2"))
	var tag history.TagInfo
	if code := postJSON(t, r.addr+"/api/tag", history.NameRequest{Name: "keep"}, &tag); code != 200 && code != 201 {
		t.Fatalf("tag: %d", code)
	}
	tagged := pgMap(t, url)

	// Writes for a while, past retain; automatic GC runs meanwhile.
	deadline := time.Now().Add(4 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		execSQL(t, url, fmt.Sprintf("UPDATE g SET x = 'w%d' WHERE id = %d", i, 3+i%290))
		time.Sleep(20 * time.Millisecond)
	}
	expiredRun := regexp.MustCompile(`msg="garbage collected" expired_versions=[1-9]`)
	daemontest.Eventually(t, "an automatic GC expiring versions", 0, func() bool { return expiredRun.MatchString(logs.String()) },
		func() string { return "log:\n" + logs.String() })
	if st := r.status(t); st.History == nil || st.History.OldestRetainedLSN == "" || st.History.LastGC == nil || st.History.LastGC.Error != "" {
		t.Errorf("status after automatic GC: %+v", st.History)
	}
	if _, m := httpGet(t, r.addr+"/metrics"); !regexp.MustCompile(`sidecar_gc_runs_total\{result="ok"\} [1-9]`).MatchString(m) ||
		!regexp.MustCompile(`sidecar_gc_expired_versions_total [1-9]`).MatchString(m) || !strings.Contains(m, "sidecar_history_oldest_lsn") {
		t.Errorf("/metrics lacks GC figures")
	}
	if code, body := httpGet(t, r.addr+"/api/resolve?ref="+earlyLSN); code != 404 || !strings.Contains(body, "oldest retained version") {
		t.Errorf("resolve of an expired version %s: %d %s", earlyLSN, code, body)
	}
	if code, got := scanAPI(t, r.addr, "public.g", "keep"); code != 200 || !maps.Equal(got, tagged) {
		t.Errorf("tagged version after GC: status %d, %d rows (want %d), equal %v", code, len(got), len(tagged), maps.Equal(got, tagged))
	}
	var st struct {
		Live    int
		Deleted int64
	}
	if code := postJSON(t, r.addr+"/api/gc", struct{}{}, &st); code != 200 || st.Live == 0 {
		t.Errorf("POST /api/gc: %d %+v", code, st)
	}
	r.waitDurable(t, marker(t, url, "UPDATE g SET x = 'last' WHERE id = 300"))
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	_, got := mirrortest.MirrorRows(t, filepath.Clean(cfg.DataDir), "public.g")
	if want := mirrortest.PGRows(t, url, "g"); !slices.Equal(got, want) {
		t.Fatalf("mirror differs from PostgreSQL after GC (%d vs %d rows)", len(got), len(want))
	}
	t.Logf("GC log lines:\n%s", grepLines(logs.String(), "garbage collected", "versions expired"))
}

// pgMap reads table g from PostgreSQL: id → x.
func pgMap(t *testing.T, url string) map[string]string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), "SELECT id::text, x FROM g")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, x string
		if err := rows.Scan(&id, &x); err != nil {
			t.Fatal(err)
		}
		out[id] = x
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func grepLines(s string, subs ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, sub := range subs {
			if strings.Contains(l, sub) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
