package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	follower "github.com/sidecar-dev/sidecar/follow"
	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/store"
	"github.com/sidecar-dev/sidecar/wal"
)

// seedFlag replays a failing random test: go test ./verify -run X -seed N.
var seedFlag = seed.Flag()

// pipeline is the sidecar's data path on a fresh database: publication
// "pub", slot "main", the initial copy into a Mirror on a disk store,
// then a Streamer applying changes into it.
type pipeline struct {
	t      *testing.T
	url    string
	conn   *pgx.Conn
	db     *store.DB
	m      *mirror.Mirror
	filter *wal.CopiedAt
	spool  string

	tables []wal.TableName
	run    *follower.Running
}

func newPipeline(t *testing.T, tables []string, schema ...string) *pipeline {
	t.Helper()
	// Directories first: cleanups run last-in first-out, and the store
	// must be closed before its directory is removed.
	dir, tmp := t.TempDir(), t.TempDir()
	p := &pipeline{t: t, url: pg.NewDB(t), filter: wal.NewCopiedAt(), spool: t.TempDir()}
	conn, err := pgx.Connect(t.Context(), p.url)
	if err != nil {
		t.Fatal(err)
	}
	p.conn = conn
	t.Cleanup(func() {
		p.stop()
		if p.m != nil {
			p.m.Close(context.Background())
		}
		if p.db != nil {
			p.db.Close()
		}
		conn.Close(context.Background())
	})
	p.exec(schema...)
	for _, s := range tables {
		tn, err := wal.ParseTableName(s)
		if err != nil {
			t.Fatal(err)
		}
		p.tables = append(p.tables, tn)
	}
	if p.db, err = store.Open(store.Options{Dir: dir, CacheBytes: 16 << 20}); err != nil {
		t.Fatal(err)
	}
	if p.m, err = mirror.Open(t.Context(), mirror.Options{DB: p.db, CopiedAt: p.filter, TempDir: tmp}); err != nil {
		t.Fatal(err)
	}
	// The initial copy; the stream starts with start.
	if err := follower.New(p.followConfig()).Prepare(t.Context()); err != nil {
		t.Fatal(err)
	}
	return p
}

// followConfig follows the pipeline's tables into its mirror.
func (p *pipeline) followConfig() follower.Config {
	return follower.Config{ConnString: p.url, Slot: "main", Publication: "pub", Tables: p.tables, Target: p.m,
		CopiedAt: p.filter, DataDir: p.spool, Copy: replication.CopyOptions{Workers: 2, RangeBlocks: 1},
		Stream: func(c *replication.StreamConfig) {
			c.MinBackoff, c.MaxBackoff = 50*time.Millisecond, 500*time.Millisecond
		}}
}

func (p *pipeline) exec(sqls ...string) {
	p.t.Helper()
	for _, s := range sqls {
		if _, err := p.conn.Exec(p.t.Context(), s); err != nil {
			p.t.Fatalf("%s: %v", s, err)
		}
	}
}

func (p *pipeline) start() {
	p.t.Helper()
	run, err := follower.Start(p.t.Context(), p.followConfig())
	if err != nil {
		p.t.Fatal(err)
	}
	p.run = run
}

func (p *pipeline) stop() {
	if p.run == nil {
		return
	}
	if err := p.run.Stop(); err != nil {
		p.t.Errorf("stream: %v", err)
	}
	p.run = nil
}

// runner verifies the pipeline's mirror the way the daemon does: with the
// stream's progress.
func (p *pipeline) runner() *Runner {
	r := &Runner{ConnString: p.url, Mirror: p.m, Publication: "pub", Slot: "main", CatchUpTimeout: 30 * time.Second}
	if p.run != nil {
		r.Progress = StreamProgress(p.run.Streamer().Stats)
	}
	return r
}

func mustRun(t *testing.T, r *Runner, tables ...string) *Report {
	t.Helper()
	rep, err := r.Run(t.Context(), tables)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return rep
}

func reportSummary(rep *Report) string {
	var b strings.Builder
	rep.WriteText(&b)
	return b.String()
}

// TestRunEveryTypeThroughPipeline: a table with every common type, copied
// and then changed through the stream, verifies equal at the pinned LSN,
// with the mirror's digests taken from its trees.
func TestRunEveryTypeThroughPipeline(t *testing.T) {
	p := newPipeline(t, []string{"public.every"}, everyTypeSchema)
	// Half the rows arrive by copy, half by the stream, then updates.
	for _, r := range everyTypeRows[:2] {
		p.exec("INSERT INTO every " + everyTypeColumns + " VALUES " + r)
	}
	p.start()
	for _, r := range everyTypeRows[2:] {
		p.exec("INSERT INTO every " + everyTypeColumns + " VALUES " + r)
	}
	p.exec(`INSERT INTO every (id, t) SELECT i, repeat('x', i % 50) FROM generate_series(100, 3100) i`,
		`UPDATE every SET n = 2.50, t = 'é' WHERE id = 1`, `DELETE FROM every WHERE id % 7 = 0 AND id > 100`)
	rep := mustRun(t, p.runner())
	if rep.Result != ResultEqual || rep.ExitCode() != 0 || len(rep.Tables) != 1 {
		t.Fatalf("want equal:\n%s", reportSummary(rep))
	}
	tr := rep.Tables[0]
	if tr.PostgresCount != 5+3001-428 || tr.MirrorCount != tr.PostgresCount || tr.Hash != "pghash64" || tr.Buckets < 2 || tr.Scheme != "fixed" {
		t.Fatalf("unexpected table report %+v", tr)
	}
	if rep.MirrorVersion == "" || !strings.Contains(rep.CaughtUp, "through") && !strings.Contains(rep.CaughtUp, "applied") {
		t.Fatalf("report does not say which version it compared or how it knew the mirror caught up: %+v", rep)
	}
}

// corrupt returns a tree hook that puts, changes and deletes rows of the
// mirror's tree (through its engine, into a new root: the stored mirror is
// untouched), and the keys it corrupted.
func corrupt(changed, missing, extra string) func(ctx context.Context, t *mirror.Tree) (*mirror.Tree, error) {
	return func(ctx context.Context, t *mirror.Tree) (*mirror.Tree, error) {
		var edits []prolly.Edit
		for _, e := range []struct {
			id  string
			del bool
			val []byte
		}{
			{changed, false, nil}, {missing, true, nil}, {extra, false, nil},
		} {
			key, err := t.Codec.Encode(e.id)
			if err != nil {
				return nil, err
			}
			if e.del {
				edits = append(edits, prolly.Edit{Key: key, Delete: true})
				continue
			}
			v, ok, err := t.Get(ctx, e.id)
			if err != nil {
				return nil, err
			}
			vals := [][]byte{[]byte(e.id), []byte("corrupted")}
			if ok {
				if vals, err = rowenc.Decode(v); err != nil {
					return nil, err
				}
				vals[1] = []byte("corrupted")
			}
			edits = append(edits, prolly.Edit{Key: key, Value: rowenc.Encode(vals)})
		}
		return withEdits(ctx, t, edits)
	}
}

// withEdits is tr with edits applied (in any key order), leaving tr as it
// is: how the tests corrupt the mirror's side of a verification.
func withEdits(ctx context.Context, tr *mirror.Tree, edits []prolly.Edit) (*mirror.Tree, error) {
	edits = slices.Clone(edits)
	slices.SortFunc(edits, func(a, b prolly.Edit) int { return bytes.Compare(a.Key, b.Key) })
	root, err := tr.Engine().Mutate(ctx, tr.Root, edits)
	if err != nil {
		return nil, err
	}
	c := *tr
	c.Root = root
	return &c, nil
}

// TestRunReportsCorruptedRows: rows corrupted on the mirror's side are
// reported by key, as changed, missing and extra, with both sides' rows,
// and the report's exit status is 1.
func TestRunReportsCorruptedRows(t *testing.T) {
	p := newPipeline(t, []string{"public.acct"}, `CREATE TABLE acct (id int8 PRIMARY KEY, name text, balance numeric)`)
	p.exec(`INSERT INTO acct SELECT i, 'name ' || i, i * 1.50 FROM generate_series(1, 5000) i`)
	p.start()
	p.exec(`UPDATE acct SET balance = balance + 1 WHERE id % 3 = 0`)
	for _, boundary := range []bool{false, true} {
		t.Run(fmt.Sprintf("boundary=%v", boundary), func(t *testing.T) {
			r := p.runner()
			r.Options.NoFixedWidth = boundary
			r.tree = corrupt("1234", "4321", "99999")
			checkCorruptionReport(t, mustRun(t, r), boundary)
		})
	}
}

func checkCorruptionReport(t *testing.T, rep *Report, boundary bool) {
	t.Helper()
	if want := map[bool]string{false: "fixed", true: "boundary"}[boundary]; rep.Tables[0].Scheme != want {
		t.Fatalf("scheme %q, want %q", rep.Tables[0].Scheme, want)
	}
	if rep.Result != ResultDifferences || rep.ExitCode() != 1 {
		t.Fatalf("want differences:\n%s", reportSummary(rep))
	}
	tr := rep.Tables[0]
	got := map[string]RowDifference{}
	for _, d := range tr.Rows {
		got[d.Kind+" "+strings.Join(d.Key, ",")] = d
	}
	if tr.Differences != 3 || len(got) != 3 {
		t.Fatalf("want 3 differences, got:\n%s", reportSummary(rep))
	}
	ch, ok1 := got["changed 1234"]
	mi, ok2 := got["missing 4321"]
	ex, ok3 := got["extra 99999"]
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("want changed 1234, missing 4321, extra 99999; got:\n%s", reportSummary(rep))
	}
	if ch.Mirror == nil || *ch.Mirror[1] != "corrupted" || ch.Postgres == nil || *ch.Postgres[1] != "name 1234" {
		t.Errorf("changed row: mirror %v, postgres %v", deref(ch.Mirror), deref(ch.Postgres))
	}
	if mi.Mirror != nil || mi.Postgres == nil || *mi.Postgres[2] != "6481.50" {
		t.Errorf("missing row: mirror %v, postgres %v", deref(mi.Mirror), deref(mi.Postgres))
	}
	if ex.Postgres != nil || ex.Mirror == nil {
		t.Errorf("extra row: mirror %v, postgres %v", deref(ex.Mirror), deref(ex.Postgres))
	}
	// The marker commit lets the stream pass the pinned LSN at once
	// instead of at the server's next keepalive.
	if rep.CatchUpSeconds > 3 {
		t.Errorf("catching up to the pinned LSN took %.1f s on an idle stream", rep.CatchUpSeconds)
	}
	if tr.DirtyBuckets < 1 || tr.DirtyBuckets > 3 {
		t.Errorf("%d dirty buckets for 3 corrupted rows", tr.DirtyBuckets)
	}
	text := reportSummary(rep)
	for _, want := range []string{"changed key (1234)", "missing key (4321)", "extra key (99999)", `name="corrupted"`} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
}

func deref(vs []*string) []string {
	if vs == nil {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		if v == nil {
			out[i] = "NULL"
		} else {
			out[i] = *v
		}
	}
	return out
}

// TestRunUnderWriteLoad: while writers insert, update and delete (and the
// stream applies them), repeated verifications all report equal: each pins
// an exact LSN and compares the mirror's version at it.
func TestRunUnderWriteLoad(t *testing.T) {
	p := newPipeline(t, []string{"public.acct", "public.pairs"},
		`CREATE TABLE acct (id int8 PRIMARY KEY, name text, balance numeric)`,
		`CREATE TABLE pairs (a int4, b text, v text, PRIMARY KEY (a, b))`)
	p.exec(`INSERT INTO acct SELECT i, 'name ' || i, i FROM generate_series(1, 20000) i`,
		`INSERT INTO pairs SELECT i % 50, 'k' || i, 'v' FROM generate_series(1, 3000) i`)
	p.start()
	seed := seed.New(t, seedFlag)
	stop := p.writeLoad(t, seed, true)
	defer stop()
	for i := range 4 {
		rep := mustRun(t, p.runner())
		if rep.Result != ResultEqual {
			t.Fatalf("seed %d: run %d under load at %s: want equal:\n%s", seed, i, rep.LSN, reportSummary(rep))
		}
		t.Logf("run %d at %s: equal (%s, %d + %d rows)", i, rep.LSN, rep.CaughtUp, rep.Tables[0].PostgresCount, rep.Tables[1].PostgresCount)
	}
	if n := stop(); n < 20 {
		t.Errorf("only %d writes ran during the verifications: the load test did not load", n)
	}
}

// writeLoad starts two writers on acct (upserts, range updates and
// deletes of ids drawn from seed) and, with pairs, upserts into pairs too.
// They run until stop is called; stop waits for them and returns how many
// statements they committed. stop may be called more than once.
func (p *pipeline) writeLoad(t *testing.T, seed uint64, pairs bool) (stop func() int) {
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var commits [2]int
	kinds := 3
	if pairs {
		kinds = 4
	}
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(seed, uint64(w)))
			conn, err := pgx.Connect(ctx, p.url)
			if err != nil {
				t.Errorf("writer %d: %v", w, err)
				return
			}
			defer conn.Close(context.Background())
			for ctx.Err() == nil {
				id := rnd.IntN(25000) + 1
				var sql string
				switch rnd.IntN(kinds) {
				case 0:
					sql = fmt.Sprintf("INSERT INTO acct VALUES (%d, 'new', 1) ON CONFLICT (id) DO UPDATE SET name = 'upserted %d'", id, rnd.IntN(100))
				case 1:
					sql = fmt.Sprintf("UPDATE acct SET balance = balance + 1 WHERE id BETWEEN %d AND %d", id, id+20)
				case 2:
					sql = fmt.Sprintf("DELETE FROM acct WHERE id = %d", id)
				default:
					sql = fmt.Sprintf("INSERT INTO pairs VALUES (%d, 'w%d', 'x') ON CONFLICT (a, b) DO UPDATE SET v = pairs.v || 'y'", id%50, id)
				}
				if _, err := conn.Exec(ctx, sql); err != nil {
					if ctx.Err() == nil {
						t.Errorf("writer %d: %s: %v", w, sql, err)
					}
					return
				}
				commits[w]++
			}
		}()
	}
	return func() int {
		cancel()
		wg.Wait()
		return commits[0] + commits[1]
	}
}

// TestRunOffline: with no stream, a mirror whose last commit precedes the
// pin is compared only when no published transaction committed in
// between (proved by peeking at the slot); otherwise it is ErrMirrorBehind.
func TestRunOffline(t *testing.T) {
	p := newPipeline(t, []string{"public.acct"}, `CREATE TABLE acct (id int8 PRIMARY KEY, name text)`, `CREATE TABLE other (x int)`)
	p.exec(`INSERT INTO acct SELECT i, 'n' FROM generate_series(1, 1000) i`)
	p.start()
	p.exec(`UPDATE acct SET name = 'm' WHERE id < 10`)
	if rep := mustRun(t, p.runner()); rep.Result != ResultEqual {
		t.Fatalf("online: %s", reportSummary(rep))
	}
	p.stop()
	// A transaction on an unpublished table does not matter.
	p.exec(`INSERT INTO other VALUES (1)`)
	rep := mustRun(t, p.runner())
	if rep.Result != ResultEqual || !strings.Contains(rep.CaughtUp, "peeked") {
		t.Fatalf("offline, nothing published since: want equal by the slot proof:\n%s\n%s", reportSummary(rep), rep.CaughtUp)
	}
	p.exec(`UPDATE acct SET name = 'later' WHERE id = 5`)
	_, err := p.runner().Run(t.Context(), nil)
	if !errors.Is(err, ErrMirrorBehind) || !strings.Contains(err.Error(), "1 transactions") {
		t.Fatalf("offline after a published commit: want ErrMirrorBehind naming it, got %v", err)
	}
	r := p.runner()
	r.Slot = ""
	if _, err := r.Run(t.Context(), nil); !errors.Is(err, ErrMirrorBehind) {
		t.Fatalf("offline without a slot to prove with: want ErrMirrorBehind, got %v", err)
	}
	// A table waiting for a resync: no daemon would finish it, so verify
	// says so at once (no wait), naming it.
	if err := p.m.MarkResync(t.Context(), "public.acct", "test"); err != nil {
		t.Fatal(err)
	}
	r = p.runner()
	r.BusyWait = time.Minute
	start := time.Now()
	_, err = r.Run(t.Context(), nil)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "public.acct is being resynced") || !strings.Contains(err.Error(), "no daemon") {
		t.Fatalf("offline with a table marked for resync: want ErrBusy naming it, got %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("offline verify of a table to resync waited %s; nothing can progress, it should fail at once", took)
	}
}

// TestRunPinTimeoutNamesBlocker: an open write transaction blocks the
// pin; the run fails in time and names it.
func TestRunPinTimeoutNamesBlocker(t *testing.T) {
	p := newPipeline(t, []string{"public.acct"}, `CREATE TABLE acct (id int8 PRIMARY KEY, name text)`)
	p.start()
	blocker, err := pgx.Connect(t.Context(), p.url)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close(context.Background())
	p.exec(`SET application_name = 'x'`)
	if _, err := blocker.Exec(t.Context(), "SET application_name = 'long_writer'; BEGIN; INSERT INTO acct VALUES (1, 'held')"); err != nil {
		t.Fatal(err)
	}
	r := p.runner()
	r.Pin.Timeout = 500 * time.Millisecond
	start := time.Now()
	_, err = r.Run(t.Context(), nil)
	if !errors.Is(err, ErrPinTimeout) || !strings.Contains(err.Error(), "long_writer") {
		t.Fatalf("want ErrPinTimeout naming long_writer, got %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("pin gave up after %v, timeout 500ms", d)
	}
	if _, err := blocker.Exec(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
}

// TestRunCompositeKeyCorruption: a table with a composite key goes
// through hash buckets; corrupted rows are still named by their whole key.
func TestRunCompositeKeyCorruption(t *testing.T) {
	p := newPipeline(t, []string{"public.pairs"}, `CREATE TABLE pairs (a int4, b text, v text, PRIMARY KEY (a, b))`)
	p.exec(`INSERT INTO pairs SELECT i % 40, 'k' || i, 'v' || i FROM generate_series(1, 4000) i`)
	p.start()
	p.exec(`UPDATE pairs SET v = 'u' WHERE a = 3`)
	r := p.runner()
	r.tree = func(ctx context.Context, tr *mirror.Tree) (*mirror.Tree, error) {
		changed, err := tr.Codec.Encode("3", "k43")
		if err != nil {
			return nil, err
		}
		missing, err := tr.Codec.Encode("7", "k87")
		if err != nil {
			return nil, err
		}
		edits := []prolly.Edit{
			{Key: changed, Value: rowenc.Encode([][]byte{[]byte("3"), []byte("k43"), []byte("corrupted")})},
			{Key: missing, Delete: true},
		}
		return withEdits(ctx, tr, edits)
	}
	rep := mustRun(t, r)
	tr := rep.Tables[0]
	if rep.Result != ResultDifferences || tr.Scheme != "hash" || tr.Differences != 2 {
		t.Fatalf("want 2 differences found through hash buckets:\n%s", reportSummary(rep))
	}
	text := reportSummary(rep)
	for _, want := range []string{"changed key (3, k43)", "missing key (7, k87)", `v="corrupted"`, `v="u"`} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}

func TestSameSchema(t *testing.T) {
	tbl := Table{Schema: "public", Name: "t", Columns: []Column{{Name: "id"}, {Name: "v"}}, Key: []int{0}}
	rel := &wal.Relation{Schema: "public", Name: "t", Columns: []wal.Column{{Name: "id", Key: true}, {Name: "v"}}}
	if err := sameSchema(tbl, rel); err != nil {
		t.Fatalf("same schema: %v", err)
	}
	added := *rel
	added.Columns = append(slices.Clone(rel.Columns), wal.Column{Name: "w"})
	if err := sameSchema(tbl, &added); err == nil || !strings.Contains(err.Error(), "resync") {
		t.Fatalf("added column: %v", err)
	}
	rekeyed := *rel
	rekeyed.Columns = []wal.Column{{Name: "id"}, {Name: "v", Key: true}}
	if err := sameSchema(tbl, &rekeyed); err == nil || !strings.Contains(err.Error(), "primary key") {
		t.Fatalf("other key: %v", err)
	}
}
