package replication

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sidecar-dev/sidecar/wal"
)

// Data-driven tests of the stream's protocol handling (Pebble's datadriven
// pattern): each file under testdata/applier and testdata/ack is a script
// of pgoutput messages and events, a line "----", and what the script must
// produce. The messages are encoded as the server sends them (XLogData
// around pgoutput bytes) and go through the real code: walReader.handle
// decodes and queues them (raw when inside a stream), the applier's run
// loop spools, replays and delivers them to a recording Sink, and the
// statusSender reports positions over a pgconn whose other end is read
// back here. go test -run TestScript -update rewrites the expectations.
//
// Script syntax, one command a line ('#' starts a comment):
//
//	start LSN                      the sink's durable LSN when the session starts (default 0/10)
//	durable LSN                    the sink makes LSN durable (its Durable() now returns it)
//	copied TABLE LSN               CopiedAt: TABLE's copy contains commits starting below LSN
//	flush-limit LSN|none           StreamConfig.FlushLimit (remote.sync_ack) returns LSN
//	settle ok|fail                 whether the sink's Settle succeeds (default ok)
//	hold / apply                   stop handing queued messages to the applier / hand them over and wait
//	poll                           the status sender wakes after minStatusGap, within the interval
//	tick                           the status sender wakes after the interval
//
// pgoutput messages (values: 'text', null, u for unchanged TOAST; LSNs as 0/1A):
//
//	relation OID SCHEMA.NAME d|f|i|n COL...   COL is name:typeoid or name:typeoid:key
//	type OID SCHEMA NAME
//	begin XID COMMITLSN  /  commit COMMITLSN ENDLSN
//	insert OID VAL...  /  update OID [key|old VAL...] new VAL...  /  delete OID key|old VAL...
//	truncate OID... [cascade] [restart-identity]
//	message transactional|plain LSN PREFIX 'CONTENT'  /  origin LSN NAME
//	stream-start XID [first]  /  stream-stop  /  stream-commit XID COMMITLSN ENDLSN  /  stream-abort XID SUBXID
//	keepalive WALEND [reply]
//
// Inside a stream a change carries the stream's xid, or a subtransaction's
// with a suffix: insert@21 500 '1'.
//
// Output: the Sink calls in order, "status write=… flush=… apply=…" or
// "no status" per poll/tick, and at the end how the applier stopped.

var updateScripts = flag.Bool("update", false, "rewrite the expectations of the testdata scripts")

func TestScriptApplier(t *testing.T) { runScripts(t, "testdata/applier") }
func TestScriptAck(t *testing.T)     { runScripts(t, "testdata/ack") }

func runScripts(t *testing.T, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no scripts in %s", dir)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			script, want, ok := strings.Cut(string(data), "\n----\n")
			if !ok && !*updateScripts {
				t.Fatalf("%s: no \"----\" line before the expected output", f)
			}
			got := runScript(t, script)
			if *updateScripts {
				if err := os.WriteFile(f, []byte(strings.TrimRight(script, "\n")+"\n----\n"+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s: output differs (rerun with -update to accept it)\n--- got\n%s--- want\n%s", f, got, want)
			}
		})
	}
}

// scriptSink records the calls it gets, one line each.
type scriptSink struct {
	durable    atomic.Uint64
	settleFail atomic.Bool
	mu         sync.Mutex
	out        *[]string
}

func (s *scriptSink) log(format string, args ...any) {
	s.mu.Lock()
	*s.out = append(*s.out, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

func (s *scriptSink) Durable() wal.LSN { return wal.LSN(s.durable.Load()) }

func (s *scriptSink) Begin(_ context.Context, txn wal.TxnInfo) error {
	s.log("Begin xid=%d commit=%s%s", txn.Xid, txn.CommitLSN, streamedWord(txn))
	return nil
}

func (s *scriptSink) Commit(_ context.Context, txn wal.TxnInfo) error {
	s.log("Commit xid=%d commit=%s end=%s%s", txn.Xid, txn.CommitLSN, txn.EndLSN, streamedWord(txn))
	return nil
}

func (s *scriptSink) Abort(_ context.Context, txn wal.TxnInfo) error {
	s.log("Abort xid=%d commit=%s%s", txn.Xid, txn.CommitLSN, streamedWord(txn))
	return nil
}

func streamedWord(txn wal.TxnInfo) string {
	if txn.Streamed {
		return " streamed"
	}
	return ""
}

func (s *scriptSink) Relation(_ context.Context, rel *wal.Relation) error {
	cols := make([]string, len(rel.Columns))
	for i, c := range rel.Columns {
		typ := c.TypeName
		if typ == "" {
			typ = "oid" + strconv.FormatUint(uint64(c.TypeOID), 10)
		}
		cols[i] = c.Name + " " + typ
		if c.Key {
			cols[i] += " key"
		}
	}
	s.log("Relation %s oid=%d identity=%c (%s)", rel.QualifiedName(), rel.OID, byte(rel.Identity), strings.Join(cols, ", "))
	return nil
}

func (s *scriptSink) Change(_ context.Context, c *wal.Change) error {
	switch c.Kind {
	case wal.Truncate:
		names := make([]string, len(c.Truncated))
		for i, r := range c.Truncated {
			names[i] = r.QualifiedName()
		}
		line := "Change truncate " + strings.Join(names, ",")
		if c.Cascade {
			line += " cascade"
		}
		if c.RestartIdentity {
			line += " restart-identity"
		}
		s.log("%s", line)
	case wal.Message:
		s.log("Change message prefix=%q content=%q", c.Prefix, c.Content)
	default:
		line := "Change " + c.Kind.String() + " " + c.Relation.QualifiedName()
		switch c.OldKind {
		case wal.OldKey:
			line += " key=" + scriptTuple(c.Old)
		case wal.OldRow:
			line += " old=" + scriptTuple(c.Old)
		}
		if c.New != nil {
			line += " new=" + scriptTuple(c.New)
		}
		s.log("%s", line)
	}
	return nil
}

func (s *scriptSink) Settle(lsn wal.LSN) error {
	if s.settleFail.Load() {
		s.log("Settle %s: refused", lsn)
		return errors.New("settle refused by the script")
	}
	s.log("Settle %s", lsn)
	return nil
}

func scriptTuple(vals []wal.Value) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch v.Kind {
		case wal.Null:
			parts[i] = "null"
		case wal.Unchanged:
			parts[i] = "u"
		default:
			parts[i] = "'" + string(v.Bytes) + "'"
		}
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// scriptRig is one session's reader, applier and status sender, wired as
// Streamer.session wires them but stepped by the script.
type scriptRig struct {
	t     *testing.T
	out   []string
	sink  *scriptSink
	s     *Streamer
	r     *walReader
	st    *statusSender
	aq    *queue     // the applier's queue: unbuffered, so a send returns once the previous item is applied
	errc  chan error // the applier's result
	done  bool       // the applier has returned
	hold  bool
	limit atomic.Uint64 // FlushLimit; 0 = none
	sent  chan string   // statuses read from the connection's other end
	inStr bool          // between stream-start and stream-stop (for the xid prefix)
	sxid  uint32
}

func (g *scriptRig) logf(format string, args ...any) {
	g.sink.log(format, args...)
}

func newScriptRig(t *testing.T, start wal.LSN, copied *wal.CopiedAt) *scriptRig {
	g := &scriptRig{t: t, errc: make(chan error, 1), sent: make(chan string, 16)}
	g.sink = &scriptSink{out: &g.out}
	g.sink.durable.Store(uint64(start))
	cfg := StreamConfig{Slot: "s", Publication: "p", Sink: g.sink, CopiedAt: copied,
		StatusInterval: 1000 * time.Hour,
		FlushLimit: func() wal.LSN {
			if l := g.limit.Load(); l != 0 {
				return wal.LSN(l)
			}
			return wal.LSN(1<<64 - 1)
		}}
	s, err := NewStreamer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g.s = s
	g.st = newStatusSender(s, fakeReplicationConn(t, g.sent), cfg.StatusInterval, start)
	g.r = &walReader{s: s, q: &queue{ch: make(chan item, 1<<12), budget: 1 << 40, drained: make(chan struct{}, 1)},
		st: g.st, openStreams: map[uint32]struct{}{}, lastCommitEnd: start}
	spool, err := NewDiskSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { spool.Close() })
	if err := spool.Reset(); err != nil {
		t.Fatal(err)
	}
	g.aq = &queue{ch: make(chan item), budget: 1 << 40, drained: make(chan struct{}, 1)}
	a := &applier{s: s, spool: spool, rels: map[uint32]*wal.Relation{}, typeNames: map[uint32]string{}}
	go func() { g.errc <- a.run(context.Background(), g.aq) }()
	return g
}

// fakeReplicationConn is a PgConn over one end of a pipe; the other end's
// standby status updates are parsed into sent.
func fakeReplicationConn(t *testing.T, sent chan<- string) *pgconn.PgConn {
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	cfg, err := pgconn.ParseConfig("postgres://script@localhost/script")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgconn.Construct(&pgconn.HijackedConn{Conn: client, Config: cfg, TxStatus: 'I', ParameterStatuses: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		hdr := make([]byte, 5)
		for {
			if _, err := io.ReadFull(server, hdr); err != nil {
				return
			}
			body := make([]byte, binary.BigEndian.Uint32(hdr[1:])-4)
			if _, err := io.ReadFull(server, body); err != nil {
				return
			}
			if hdr[0] != 'd' || len(body) != 34 || body[0] != 'r' {
				sent <- fmt.Sprintf("unexpected message %q %x", hdr[0], body)
				continue
			}
			sent <- fmt.Sprintf("status write=%s flush=%s apply=%s",
				wal.LSN(binary.BigEndian.Uint64(body[1:])), wal.LSN(binary.BigEndian.Uint64(body[9:])), wal.LSN(binary.BigEndian.Uint64(body[17:])))
		}
	}()
	return conn
}

// deliver hands what the reader queued to the applier and returns once it
// is applied (or the applier stopped).
func (g *scriptRig) deliver() {
	for {
		var it item
		select {
		case it = <-g.r.q.ch:
		default:
			// A no-op item: its send returns once everything before it
			// has been applied.
			it = item{m: wireMsg{typ: 'O'}}
		}
		if g.done {
			return
		}
		select {
		case g.aq.ch <- it:
		case err := <-g.errc:
			g.stopped(err)
			return
		}
		if it.m.typ == 'O' && it.raw == nil && it.m.size == 0 {
			return
		}
	}
}

func (g *scriptRig) stopped(err error) {
	g.done = true
	if err != nil {
		g.logf("applier stopped: %v", err)
	} else {
		g.logf("applier stopped")
	}
}

// finish ends the session as a lost connection does: the applier's queue
// closes.
func (g *scriptRig) finish() string {
	if !g.done {
		g.deliver()
	}
	if !g.done {
		close(g.aq.ch)
		select {
		case err := <-g.errc:
			if err != nil {
				g.logf("end: %v", err)
			}
		case <-time.After(60 * time.Second):
			g.t.Fatal("the applier did not return within 60 s of its queue closing")
		}
	}
	g.logf("end: received=%s committed=%s settled=%s", wal.LSN(g.s.received.Load()), wal.LSN(g.s.committed.Load()), wal.LSN(g.s.settled.Load()))
	g.sink.mu.Lock()
	defer g.sink.mu.Unlock()
	return strings.Join(g.out, "\n") + "\n"
}

// status runs the status sender's decision as its loop would after a
// wake-up: within the interval (poll) or after it (tick).
func (g *scriptRig) status(afterInterval bool) {
	if afterInterval {
		g.st.lastStatus = time.Now().Add(-2 * g.st.interval)
	} else {
		g.st.lastStatus = time.Now().Add(-time.Hour) // past minStatusGap, far within the interval
	}
	// The settler runs between two looks of the sender: what this look
	// asks to settle is settled (or refused) before it decides.
	g.st.flushable()
	g.st.settleOnce(g.sink)
	before := g.s.statusSent.Load()
	if err := g.st.maybeSend(context.Background()); err != nil {
		g.t.Fatalf("status: %v", err)
	}
	if g.s.statusSent.Load() == before {
		g.logf("no status")
		return
	}
	select {
	case line := <-g.sent:
		g.logf("%s", line)
	case <-time.After(60 * time.Second):
		g.t.Fatal("status sent, but nothing arrived on the connection within 60 s")
	}
}

func runScript(t *testing.T, script string) string {
	start := wal.LSN(0x10)
	copied := wal.NewCopiedAt()
	var g *scriptRig
	rig := func() *scriptRig {
		if g == nil {
			g = newScriptRig(t, start, copied)
		}
		return g
	}
	for n, line := range strings.Split(script, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 && !strings.Contains(line[:i], "'") {
			line = line[:i]
		}
		f := scriptFields(t, line)
		if len(f) == 0 {
			continue
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("line %d %q: %s", n+1, strings.TrimSpace(line), fmt.Sprintf(format, args...))
		}
		lsn := func(i int) wal.LSN {
			if i >= len(f) {
				fail("missing LSN argument %d", i)
			}
			l, err := wal.ParseLSN(f[i])
			if err != nil {
				fail("%v", err)
			}
			return l
		}
		num := func(i int) uint32 {
			if i >= len(f) {
				fail("missing number argument %d", i)
			}
			v, err := strconv.ParseUint(f[i], 10, 32)
			if err != nil {
				fail("%v", err)
			}
			return uint32(v)
		}
		cmd, sub, hasSub := strings.Cut(f[0], "@")
		switch cmd {
		case "start":
			if g != nil {
				fail("start must come before the first message")
			}
			start = lsn(1)
			continue
		case "copied":
			copied.Set(f[1], lsn(2))
			continue
		}
		g := rig()
		if g.done && cmd != "poll" && cmd != "tick" && cmd != "durable" && cmd != "flush-limit" {
			continue // the applier stopped: the session is over
		}
		e := &enc{}
		switch cmd {
		case "durable":
			g.sink.durable.Store(uint64(lsn(1)))
			continue
		case "flush-limit":
			if f[1] == "none" {
				g.limit.Store(0)
			} else {
				g.limit.Store(uint64(lsn(1)))
			}
			continue
		case "settle":
			g.sink.settleFail.Store(f[1] == "fail")
			continue
		case "hold":
			g.hold = true
			continue
		case "apply":
			g.hold = false
			g.deliver()
			continue
		case "poll", "tick":
			g.status(cmd == "tick")
			continue
		case "keepalive":
			e.u8('k').u64(uint64(lsn(1))).u64(0)
			if len(f) > 2 && f[2] == "reply" {
				e.u8(1)
			} else {
				e.u8(0)
			}
			if err := g.r.handle(context.Background(), e.b); err != nil {
				fail("keepalive: %v", err)
			}
			continue
		}
		// A pgoutput message.
		e.u8(scriptType(cmd))
		if g.inStr && isStreamable(e.b[0]) {
			xid := g.sxid
			if hasSub {
				v, err := strconv.ParseUint(sub, 10, 32)
				if err != nil {
					fail("%v", err)
				}
				xid = uint32(v)
			}
			e.u32(xid)
		} else if hasSub {
			fail("@xid outside a stream")
		}
		switch cmd {
		case "begin":
			e.u64(uint64(lsn(2))).ts(time.Unix(1, 0)).u32(num(1))
		case "commit":
			e.u8(0).u64(uint64(lsn(1))).u64(uint64(lsn(2))).ts(time.Unix(1, 0))
		case "origin":
			e.u64(uint64(lsn(1))).str(f[2])
		case "relation":
			schema, name, _ := strings.Cut(f[2], ".")
			e.u32(num(1)).str(schema).str(name).u8(f[3][0]).u16(uint16(len(f) - 4))
			for _, c := range f[4:] {
				parts := strings.Split(c, ":")
				if len(parts) < 2 {
					fail("column %q: want name:typeoid[:key]", c)
				}
				oid, err := strconv.ParseUint(parts[1], 10, 32)
				if err != nil {
					fail("column %q: %v", c, err)
				}
				flags := byte(0)
				if len(parts) > 2 && parts[2] == "key" {
					flags = 1
				}
				e.u8(flags).str(parts[0]).u32(uint32(oid)).u32(0xffffffff)
			}
		case "type":
			e.u32(num(1)).str(f[2]).str(f[3])
		case "insert":
			e.u32(num(1)).u8('N').tuple(scriptValues(fail, f[2:])...)
		case "update":
			e.u32(num(1))
			rest := f[2:]
			if len(rest) > 0 && (rest[0] == "key" || rest[0] == "old") {
				i := indexOf(rest, "new")
				if i < 0 {
					fail("update without new")
				}
				e.u8(map[string]byte{"key": 'K', "old": 'O'}[rest[0]]).tuple(scriptValues(fail, rest[1:i])...)
				rest = rest[i:]
			}
			if len(rest) == 0 || rest[0] != "new" {
				fail("update: want [key|old VAL...] new VAL...")
			}
			e.u8('N').tuple(scriptValues(fail, rest[1:])...)
		case "delete":
			e.u32(num(1)).u8(map[string]byte{"key": 'K', "old": 'O'}[f[2]]).tuple(scriptValues(fail, f[3:])...)
		case "truncate":
			var ids []uint32
			var flags byte
			for i := 1; i < len(f); i++ {
				switch f[i] {
				case "cascade":
					flags |= 1
				case "restart-identity":
					flags |= 2
				default:
					ids = append(ids, num(i))
				}
			}
			e.u32(uint32(len(ids))).u8(flags)
			for _, id := range ids {
				e.u32(id)
			}
		case "message":
			flags := byte(0)
			if f[1] == "transactional" {
				flags = 1
			}
			content := strings.Trim(f[4], "'")
			e.u8(flags).u64(uint64(lsn(2))).str(f[3]).u32(uint32(len(content))).raw([]byte(content))
		case "stream-start":
			g.sxid = num(1)
			first := byte(0)
			if len(f) > 2 && f[2] == "first" {
				first = 1
			}
			e.u32(g.sxid).u8(first)
		case "stream-stop":
		case "stream-commit":
			e.u32(num(1)).u8(0).u64(uint64(lsn(2))).u64(uint64(lsn(3))).ts(time.Unix(1, 0))
		case "stream-abort":
			e.u32(num(1)).u32(num(2))
		default:
			fail("unknown command")
		}
		switch cmd {
		case "stream-start":
			g.inStr = true
		case "stream-stop":
			g.inStr = false
		}
		x := (&enc{}).u8('w').u64(0).u64(0).u64(0).raw(e.b).b // XLogData: start, end, clock
		if err := g.r.handle(context.Background(), x); err != nil {
			g.logf("reader stopped: %v", err)
			g.done = true
			continue
		}
		if !g.hold {
			g.deliver()
		}
	}
	return rig().finish()
}

func scriptType(cmd string) byte {
	return map[string]byte{"begin": 'B', "commit": 'C', "origin": 'O', "relation": 'R', "type": 'Y',
		"insert": 'I', "update": 'U', "delete": 'D', "truncate": 'T', "message": 'M',
		"stream-start": 'S', "stream-stop": 'E', "stream-commit": 'c', "stream-abort": 'A'}[cmd]
}

func indexOf(s []string, w string) int {
	for i, v := range s {
		if v == w {
			return i
		}
	}
	return -1
}

func scriptValues(fail func(string, ...any), f []string) []wal.Value {
	vals := make([]wal.Value, len(f))
	for i, v := range f {
		switch {
		case v == "null":
			vals[i] = wal.Value{Kind: wal.Null}
		case v == "u":
			vals[i] = wal.Value{Kind: wal.Unchanged}
		case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
			vals[i] = txt(v[1 : len(v)-1])
		default:
			fail("value %q: want 'text', null or u", v)
		}
	}
	return vals
}

// scriptFields splits a line at spaces, keeping a quoted 'value with
// spaces' (and what is glued to it) as one field.
func scriptFields(t *testing.T, line string) []string {
	var f []string
	var cur strings.Builder
	quoted, have := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			quoted = !quoted
			cur.WriteRune(r)
			have = true
		case (r == ' ' || r == '\t') && !quoted:
			if have {
				f = append(f, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", line)
	}
	if have {
		f = append(f, cur.String())
	}
	return f
}
