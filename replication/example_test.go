package replication_test

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/sidecar-dev/sidecar/replication"
	"github.com/sidecar-dev/sidecar/wal"
)

// mirrorState stands for what the mirror persists (in the same Badger
// commits as the rows they describe).
type mirrorState struct {
	System   wal.SystemIdentity
	SlotLSN  wal.LSN            // consistent point of the main slot
	CopiedAt map[string]wal.LSN // tables completely copied, and at which LSN
}

// Example shows the lifecycle the mirror drives: identity check,
// publication before slot, copy under the exported snapshot, resync of
// tables a crash left half-copied, then streaming from the durable LSN.
func Example() {
	ctx := context.Background()
	url := "postgres://sidecar@127.0.0.1:5432/app"
	var st mirrorState    // loaded from the data directory
	var sink wal.Sink     // the mirror's apply pipeline
	var copy wal.CopySink // the mirror's bulk loader
	tables := []wal.TableName{{Schema: "public", Name: "accounts"}}

	// 1. Same cluster, same timeline as the mirror was built from?
	rc, err := replication.ConnectReplication(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	sys, err := replication.IdentifySystem(ctx, rc)
	rc.Close(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := sys.Check(st.System); err != nil {
		log.Fatal(err) // ErrSystemChanged: `sidecar run --resync`
	}

	if st.SlotLSN == 0 {
		// 2. A new mirror: publication first, then the slot.
		conn, err := replication.Connect(ctx, url)
		if err != nil {
			log.Fatal(err)
		}
		_, err = replication.EnsurePublication(ctx, conn, replication.PublicationSpec{Name: "sidecar", Tables: []string{"public.accounts"}})
		conn.Close(ctx)
		if err != nil {
			log.Fatal(err) // names tables without a key, filtered publications...
		}
		snap, err := replication.CreateSlot(ctx, url, "sidecar")
		if err != nil {
			log.Fatal(err)
		}
		st.System, st.SlotLSN = snap.System, snap.LSN // persist before copying
		// 3. Copy under the exported snapshot; CopySink.TableCopied
		// persists each table with snap.LSN.
		err = replication.Copy(ctx, replication.CopyOptions{ConnString: url, Workers: 4}, snap.Snapshot(), tables, copy)
		snap.Close(ctx) // only now: the workers have imported the snapshot
		if err != nil {
			log.Fatal(err) // the next start resyncs what is missing
		}
	}

	// 4. Tables a crash left half-copied: copy again under a fresh
	// snapshot; their changes before it are dropped from the stream.
	filter := wal.NewCopiedAt()
	var missing []wal.TableName
	for _, t := range tables {
		at, ok := st.CopiedAt[t.String()]
		if !ok {
			missing = append(missing, t)
		} else if at != st.SlotLSN {
			filter.Set(t.String(), at)
		}
	}
	if len(missing) > 0 {
		at, err := replication.Resync(ctx, replication.CopyOptions{ConnString: url}, missing, copy)
		if err != nil {
			log.Fatal(err)
		}
		for _, t := range missing {
			filter.Set(t.String(), at)
		}
	}

	// 5. Stream from sink.Durable() (at first: st.SlotLSN) until ctx ends.
	s, err := replication.NewStreamer(replication.StreamConfig{
		ConnString: url, Slot: "sidecar", Publication: "sidecar", Sink: sink,
		System: st.System, CopiedAt: filter,
		OnError: func(err error, retry time.Duration) { log.Printf("replication: %v; retrying in %v", err, retry) },
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Run(ctx); errors.Is(err, replication.ErrSlotLost) {
		log.Fatal(err) // the message says how to start over
	}
}
