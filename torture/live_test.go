package torture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// load is the write workload of a run, paused while a check compares
// the mirror with PostgreSQL (both sides must hold still) and resumed
// after it. One goroutine at a time draws from rng.
type load struct {
	url, hostile, col string
	rng               *rand.Rand
	fig               *figures

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startLoad(url, hostile, col string, rng *rand.Rand, fig *figures) *load {
	l := &load{url: url, hostile: hostile, col: col, rng: rng, fig: fig}
	l.resume()
	return l
}

// resume starts the workload (again).
func (l *load) resume() {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		workload(ctx, l.url, l.hostile, l.col, l.rng, l.fig)
	}()
}

// pause stops the workload and waits until its last transaction ended.
func (l *load) pause() {
	if l.cancel != nil {
		l.cancel()
		l.wg.Wait()
		l.cancel = nil
	}
}

// liveChecker checks a running sidecar through its API while the
// workload is paused and the sidecar has applied everything: /api/verify
// equal, every table's rows at HEAD (GET /api/scan) equal to PostgreSQL's
// row by row, and the counter consecutive across the versions touching it
// since the last check (GET /api/log, GET /api/get). A GC that dropped
// versions is fine below the retention horizon: the first retained
// version starts the count (since 0: every retained version).
type liveChecker struct {
	t        *testing.T
	api, url string
	tables   []string
	fig      *figures

	since     wal.LSN // the newest counter version checked (0: none yet)
	oldest    int64   // since 0: the counter at the oldest retained version
	lastCount int64   // the counter at since
	checks    int     // rounds done
}

// logEntry is the part of history.LogEntry the checker reads.
type logEntry struct {
	LSN         string `json:"lsn"`
	CommitTime  time.Time
	InitialCopy bool `json:"initial_copy"`
	Tables      []struct {
		Table string `json:"table"`
	} `json:"tables"`
}

// check runs one round; it returns what it found wrong (nil: nothing).
func (c *liveChecker) check() []string {
	c.checks++
	var bad []string
	// The counter first: its versions are the ones a GC may expire.
	if err := c.counter(); err != nil {
		bad = append(bad, "counter: "+err.Error())
	}
	if v, err := verifyAPI(c.api); err != nil || v != "equal" {
		bad = append(bad, fmt.Sprintf("verify: %q %v", v, err))
	}
	for _, tbl := range c.tables {
		got, err := scanAPI(c.api, tbl)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		want := mirrortest.PGRows(c.t, c.url, tbl)
		if !slices.Equal(got, want) {
			bad = append(bad, fmt.Sprintf("%s: the mirror's HEAD has %d rows, PostgreSQL %d; they differ (%s)", tbl, len(got), len(want), firstDiff(got, want)))
		}
		c.fig.rowsCompared += len(want)
	}
	return bad
}

// counter checks the counter across the versions touching it after
// c.since: the i-th holds lastCount+i (a version missing or doubled
// breaks it), the newest equals PostgreSQL's counter. It reads the
// counter at the newest version and at up to 8 others.
func (c *liveChecker) counter() error {
	for try := 1; ; try++ {
		err, retry := c.counterOnce()
		// From the oldest retained version, a version read may expire
		// under a concurrent GC before it is read: list again.
		if err == nil || !retry || c.since != 0 || try == 3 {
			return err
		}
	}
}

func (c *liveChecker) counterOnce() (err error, retry bool) {
	q := "/api/log?table=public.counter"
	if c.since != 0 {
		q += "&since=" + url.QueryEscape(c.since.String())
	}
	code, body := call("GET", c.api+q, "")
	if code != 200 {
		return fmt.Errorf("log: %d %.300s", code, body), false
	}
	var vs []wal.LSN // oldest first
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e logEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("log line %.200q: %w", sc.Bytes(), err), false
		}
		if e.InitialCopy || !slices.ContainsFunc(e.Tables, func(t struct {
			Table string `json:"table"`
		}) bool {
			return t.Table == "public.counter"
		}) {
			continue // the copy, or a version that held it for a resync
		}
		l, err := wal.ParseLSN(e.LSN)
		if err != nil {
			return fmt.Errorf("log lsn %q: %w", e.LSN, err), false
		}
		vs = append(vs, l)
	}
	slices.Reverse(vs)
	if len(vs) == 0 {
		return fmt.Errorf("no version touched the counter since %s (log: %.600s)", c.since, body), false
	}
	want := func(i int) int64 { return c.lastCount + int64(i) + 1 }
	if c.since == 0 { // the oldest retained version starts the count
		k, err := counterAt(c.api, vs[0])
		if err != nil {
			return err, true
		}
		c.lastCount, c.oldest = k-1, k
	}
	idx := []int{len(vs) - 1}
	for i := 1; i < 8 && i < len(vs); i++ {
		idx = append(idx, i*len(vs)/8)
	}
	for _, i := range idx {
		k, err := counterAt(c.api, vs[i])
		if err != nil {
			return err, true
		}
		if k != want(i) {
			return fmt.Errorf("version %s (the %d-th touching the counter after %s, counter %d there) has counter %d, want %d: a version is missing or doubled",
				vs[i], i+1, c.since, c.lastCount, k, want(i)), false
		}
	}
	var pgCount int64
	if err := queryRow(c.url, "SELECT n FROM counter WHERE id = 1", nil, &pgCount); err != nil {
		return fmt.Errorf("PostgreSQL's counter: %w", err), false
	}
	if last := want(len(vs) - 1); last != pgCount {
		return fmt.Errorf("the newest version %s has counter %d, PostgreSQL %d", vs[len(vs)-1], last, pgCount), false
	}
	c.fig.liveVersions += len(vs)
	c.since, c.lastCount = vs[len(vs)-1], pgCount
	return nil, false
}

// counterAt reads the counter at version v through GET /api/get.
func counterAt(api string, v wal.LSN) (int64, error) {
	code, body := call("GET", api+"/api/get?table=public.counter&pk=1&as_of="+url.QueryEscape(v.String()), "")
	var res struct {
		Rows []map[string]*string `json:"rows"`
	}
	if code != 200 || json.Unmarshal(body, &res) != nil || len(res.Rows) != 1 || res.Rows[0]["n"] == nil {
		return 0, fmt.Errorf("counter at %s: %d %.300s", v, code, body)
	}
	k, err := strconv.ParseInt(*res.Rows[0]["n"], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("counter at %s: %w", v, err)
	}
	return k, nil
}

// scanAPI reads every row of table at HEAD through GET /api/scan,
// vrow1-encoded in the header's column order and sorted, as
// mirrortest.PGRows renders PostgreSQL's.
func scanAPI(api, table string) ([]string, error) {
	code, body := callUpTo("GET", api+"/api/scan?table="+url.QueryEscape(table), "", 1<<30)
	if code != 200 {
		return nil, fmt.Errorf("scan %s: %d %.300s", table, code, body)
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 8<<20)
	var cols []string
	var rows []string
	for sc.Scan() {
		if cols == nil {
			var h struct {
				Columns []struct {
					Name string `json:"name"`
				} `json:"columns"`
			}
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil || len(h.Columns) == 0 {
				return nil, fmt.Errorf("scan %s: header %.200q: %v", table, sc.Bytes(), err)
			}
			for _, c := range h.Columns {
				cols = append(cols, c.Name)
			}
			continue
		}
		var m map[string]*string
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["error"] != nil && len(m) == 1 {
			return nil, fmt.Errorf("scan %s: line %.200q: %v", table, sc.Bytes(), err)
		}
		vals := make([][]byte, len(cols))
		for i, c := range cols {
			if v := m[c]; v != nil {
				vals[i] = []byte(*v)
			}
		}
		rows = append(rows, string(rowenc.Encode(vals)))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("scan %s: %w", table, err)
	}
	slices.Sort(rows)
	return rows, nil
}

// verifyAPI is POST /api/verify's result.
func verifyAPI(api string) (string, error) {
	code, body := call("POST", api+"/api/verify", `{"wait":"120s"}`)
	var rep struct {
		Result string `json:"result"`
	}
	if code != 200 || json.Unmarshal(body, &rep) != nil {
		return "", fmt.Errorf("verify: %d %.300s", code, body)
	}
	return rep.Result, nil
}

// firstDiff names the first row on one side only (for the message).
func firstDiff(got, want []string) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("PostgreSQL has %.200q beyond the mirror's rows", want[i])
		case i >= len(want):
			return fmt.Sprintf("the mirror has %.200q beyond PostgreSQL's rows", got[i])
		case got[i] != want[i]:
			return fmt.Sprintf("first difference: mirror %.200q, PostgreSQL %.200q", got[i], want[i])
		}
	}
	return "same rows"
}
