package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/internal/seed"
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/rowenc/rowhash"
)

// streamedChange is one row change as pgoutput sends it, reduced to what
// a mirror applies: delete oldKey (if set), then put (key, row) (if set).
type streamedChange struct {
	oldKey []byte
	key    []byte
	vals   [][]byte
	keep   []bool // unchanged TOAST columns
}

type streamedTxn struct {
	end     pglogrepl.LSN
	changes []streamedChange
}

// txnLog collects committed transactions from a pgoutput stream.
type txnLog struct {
	mu      sync.Mutex
	txns    []streamedTxn
	walEnd  pglogrepl.LSN // highest commit end or idle keepalive seen
	pending bool
	err     error
	// Counters proving the interesting paths ran.
	unchangedToast, keyChanges, deletes int
}

func (l *txnLog) passed(c pglogrepl.LSN) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.walEnd >= c, l.err
}

// mirrorAt replays every transaction ending at or before c.
func (l *txnLog) mirrorAt(t *testing.T, c pglogrepl.LSN) *sliceMirror {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	m := &sliceMirror{hash: rowhash.PGHash64}
	find := func(k []byte) (int, bool) {
		return slices.BinarySearchFunc(m.rows, k, func(a mirrorRow, k []byte) int { return bytes.Compare(a.key, k) })
	}
	for _, tx := range l.txns {
		if tx.end > c {
			continue
		}
		for _, ch := range tx.changes {
			var prev []byte
			if ch.oldKey != nil {
				if i, ok := find(ch.oldKey); ok {
					prev = m.rows[i].value
					m.remove(ch.oldKey)
				}
			}
			if ch.key == nil {
				continue
			}
			if i, ok := find(ch.key); ok {
				prev = m.rows[i].value
			}
			row, err := rowenc.AppendMerged(nil, ch.vals, ch.keep, prev)
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			m.set(mirrorRow{key: ch.key, value: row})
		}
	}
	return m
}

// follow consumes pgoutput from the slot into l until ctx ends.
func follow(ctx context.Context, repl *pgconn.PgConn, slot string, start pglogrepl.LSN, l *txnLog, codec *rowenc.KeyCodec) error {
	if err := pglogrepl.StartReplication(ctx, repl, slot, start, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names 'pub'"},
	}); err != nil {
		return err
	}
	var keyCols []int
	var cur streamedTxn
	keyOf := func(td *pglogrepl.TupleData) ([]byte, error) {
		texts := make([][]byte, len(keyCols))
		for i, c := range keyCols {
			if td.Columns[c].DataType != 't' {
				return nil, fmt.Errorf("key column %d sent as %q", c, td.Columns[c].DataType)
			}
			texts[i] = td.Columns[c].Data
		}
		return codec.Append(nil, texts)
	}
	put := func(td *pglogrepl.TupleData, oldKey []byte) error {
		k, err := keyOf(td)
		if err != nil {
			return err
		}
		ch := streamedChange{oldKey: oldKey, key: k, vals: make([][]byte, len(td.Columns)), keep: make([]bool, len(td.Columns))}
		for i, c := range td.Columns {
			switch c.DataType {
			case 't':
				ch.vals[i] = slices.Clone(c.Data)
			case 'u':
				ch.keep[i] = true
			case 'n':
			default:
				return fmt.Errorf("column %d sent as %q", i, c.DataType)
			}
		}
		cur.changes = append(cur.changes, ch)
		return nil
	}
	for {
		msg, err := repl.ReceiveMessage(ctx)
		if err != nil {
			return err
		}
		cd, ok := msg.(*pgproto3.CopyData)
		if !ok {
			if er, isErr := msg.(*pgproto3.ErrorResponse); isErr {
				return fmt.Errorf("server: %s", er.Message)
			}
			continue
		}
		switch cd.Data[0] {
		case pglogrepl.PrimaryKeepaliveMessageByteID:
			ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(cd.Data[1:])
			if err != nil {
				return err
			}
			l.mu.Lock()
			if !l.pending && ka.ServerWALEnd > l.walEnd {
				l.walEnd = ka.ServerWALEnd
			}
			ack := l.walEnd
			l.mu.Unlock()
			if ka.ReplyRequested {
				if err := pglogrepl.SendStandbyStatusUpdate(ctx, repl, pglogrepl.StandbyStatusUpdate{
					WALWritePosition: ack, WALFlushPosition: ack, WALApplyPosition: ack,
				}); err != nil {
					return err
				}
			}
		case pglogrepl.XLogDataByteID:
			xld, err := pglogrepl.ParseXLogData(cd.Data[1:])
			if err != nil {
				return err
			}
			lm, err := pglogrepl.Parse(xld.WALData)
			if err != nil {
				return err
			}
			switch m := lm.(type) {
			case *pglogrepl.RelationMessage:
				keyCols = keyCols[:0]
				for i, c := range m.Columns {
					if c.Flags&1 != 0 {
						keyCols = append(keyCols, i)
					}
				}
			case *pglogrepl.BeginMessage:
				cur = streamedTxn{}
				l.mu.Lock()
				l.pending = true
				l.mu.Unlock()
			case *pglogrepl.InsertMessage:
				if err := put(m.Tuple, nil); err != nil {
					return err
				}
			case *pglogrepl.UpdateMessage:
				var oldKey []byte
				if m.OldTuple != nil {
					if oldKey, err = keyOf(m.OldTuple); err != nil {
						return err
					}
				}
				if err := put(m.NewTuple, oldKey); err != nil {
					return err
				}
			case *pglogrepl.DeleteMessage:
				k, err := keyOf(m.OldTuple)
				if err != nil {
					return err
				}
				cur.changes = append(cur.changes, streamedChange{oldKey: k})
			case *pglogrepl.CommitMessage:
				cur.end = m.TransactionEndLSN
				l.mu.Lock()
				for _, ch := range cur.changes {
					switch {
					case ch.key == nil:
						l.deletes++
					case ch.oldKey != nil:
						l.keyChanges++
					}
					if slices.Contains(ch.keep, true) {
						l.unchangedToast++
					}
				}
				l.txns = append(l.txns, cur)
				l.walEnd = max(l.walEnd, m.TransactionEndLSN)
				l.pending = false
				l.mu.Unlock()
			}
		}
	}
}

// TestVerifyUnderLoadFromStream is the end-to-end claim of verify, with a
// test-only mirror: rows are kept exactly as a pgoutput stream delivers
// them (vrow1 of the text columns, unchanged TOAST copied from the stored
// row), and, while writers keep committing inserts, updates (including key
// changes and TOAST-sized values) and deletes, each pinned snapshot of
// PostgreSQL verifies equal to the mirror replayed up to its LSN: no false
// mismatches.
func TestVerifyUnderLoadFromStream(t *testing.T) {
	url := pg.NewDB(t)
	conn := connect(t, url, nil)
	mustExec(t, conn, `CREATE TABLE acct (id int8 PRIMARY KEY, bal numeric(12,2) NOT NULL, note text, big text, at timestamptz);
ALTER TABLE acct ALTER COLUMN big SET STORAGE EXTERNAL;
CREATE PUBLICATION pub FOR TABLE acct;`)
	tbl, err := LoadTable(t.Context(), conn, "public", "acct")
	if err != nil {
		t.Fatal(err)
	}
	codec, _ := rowenc.NewKeyCodec(tbl.KeyKinds()...)

	repl := connect(t, url, map[string]string{"replication": "database"})
	slot, err := pglogrepl.CreateReplicationSlot(t.Context(), repl, "e2e", "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Temporary: true, SnapshotAction: "NOEXPORT_SNAPSHOT"})
	if err != nil {
		t.Fatal(err)
	}
	start, _ := pglogrepl.ParseLSN(slot.ConsistentPoint)
	mustExec(t, conn, `INSERT INTO acct SELECT i, i * 1.5, CASE WHEN i % 5 = 0 THEN NULL ELSE 'n' || i END,
  CASE WHEN i % 50 = 0 THEN repeat(md5(i::text), 200) END, '2026-01-01'::timestamptz + i * interval '1 s'
  FROM generate_series(1, 2000) i`)

	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	log := &txnLog{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := follow(ctx, repl, "e2e", start, log, codec); err != nil && ctx.Err() == nil {
			log.mu.Lock()
			log.err = err
			log.mu.Unlock()
		}
	}()
	seed := seed.New(t, seedFlag)
	writeErr := make(chan error, 2)
	for w := range 2 {
		wc := connect(t, url, nil)
		r := rand.New(rand.NewPCG(seed, uint64(w)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				id := 1 + r.IntN(2500)
				var sql string
				switch r.IntN(6) {
				case 0:
					sql = fmt.Sprintf("INSERT INTO acct VALUES (%d, %d.25, 'ins', NULL, now()) ON CONFLICT DO NOTHING", id, r.IntN(1000))
				case 1:
					sql = fmt.Sprintf("DELETE FROM acct WHERE id = %d", id)
				case 2: // key change
					sql = fmt.Sprintf("UPDATE acct SET id = id + 3000 WHERE id = %d AND NOT EXISTS (SELECT 1 FROM acct WHERE id = %d)", id, id+3000)
				case 3: // unchanged TOAST column travels as 'u'
					sql = fmt.Sprintf("UPDATE acct SET bal = bal + 1 WHERE id IN (%d, %d)", id, id/50*50)
				case 4:
					sql = fmt.Sprintf("BEGIN; UPDATE acct SET note = note || 'x', at = now() WHERE id = %d; UPDATE acct SET big = repeat('z', 5000) WHERE id = %d; COMMIT", id, id+1)
				default:
					sql = fmt.Sprintf("UPDATE acct SET note = NULL, bal = 0.10 WHERE id = %d", id)
				}
				if _, err := wc.Exec(ctx, sql).ReadAll(); err != nil {
					if ctx.Err() == nil {
						var pgErr *pgconn.PgError
						if errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "40P01") {
							continue // concurrent key change or deadlock: try another
						}
						writeErr <- err
					}
					return
				}
			}
		}()
	}

	for i := range 3 {
		time.Sleep(300 * time.Millisecond)
		p, err := Pin(t.Context(), mustConfig(t, url), PinOptions{Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			ok, err := log.passed(p.LSN())
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			if ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("stream did not pass %v", p.LSN())
			}
			time.Sleep(20 * time.Millisecond)
		}
		m := log.mirrorAt(t, p.LSN())
		res, err := VerifyTable(t.Context(), p.Conn(), tbl, m, Options{BucketRows: 128})
		p.Close(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		log.mu.Lock()
		t.Logf("run %d at %v: %d rows, %d buckets; streamed so far: %d transactions, %d key changes, %d deletes, %d updates with unchanged TOAST",
			i, p.LSN(), res.PG.Count, res.Buckets, len(log.txns), log.keyChanges, log.deletes, log.unchangedToast)
		log.mu.Unlock()
		if !res.Equal() {
			t.Fatalf("seed %d run %d: false mismatch under load: %s", seed, i, summary(res))
		}
	}
	stop()
	wg.Wait()
	select {
	case err := <-writeErr:
		t.Fatalf("writer: %v", err)
	default:
	}
	if log.keyChanges == 0 || log.deletes == 0 || log.unchangedToast == 0 {
		t.Errorf("load did not exercise every path: %d key changes, %d deletes, %d unchanged TOAST", log.keyChanges, log.deletes, log.unchangedToast)
	}
}
