package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/internal/testkit/mirrortest"
	"github.com/sidecar-dev/sidecar/store"
)

// TestCrashKill9Head is TestCrashKill9 for the in-memory HEAD: the real
// binary, checkpointing its model every 300 ms, is killed with SIGKILL
// during apply and restarted. After every kill the last checkpoint on
// disk, restored offline, must equal the trees at its LSN (count and
// every row). Usable checkpoints alternate between kept (the next start
// must restore it) and damaged — an index file cut short (a flipped byte
// in the index stream for a checkpoint kept in the store), or the
// position record deleted — which the next start must not use (it
// rebuilds from the trees; the log says why for a corrupt one). After the final catch-up and clean stop the checkpoint written at
// shutdown must equal HEAD: the model caught up by diff from whatever the
// last start restored or rebuilt.
func TestCrashKill9Head(t *testing.T) {
	const kills = 8
	damaged := map[int]string{}
	var usable, compared, restoredStarts, rebuiltAfterDamage int
	restore := func(t *testing.T, dataDir string, seed int64) (*head.Model, *store.DB, func()) {
		t.Helper()
		db, m, closeAll := mirrortest.Open(t, dataDir)
		mod := head.Restore(head.Options{Persist: &head.Persist{DB: db, Mirror: m, Every: -1}})
		if len(mod.Tables()) == 0 {
			return mod, db, closeAll
		}
		n, err := mod.Compare(context.Background(), m)
		if err != nil {
			closeAll()
			t.Fatalf("seed %d: the checkpoint at %s differs from the trees: %v", seed, mod.LSN(), err)
		}
		t.Logf("checkpoint at %s equals the trees (%d tables, %d rows)", mod.LSN(), len(mod.Tables()), n)
		compared++
		return mod, db, closeAll
	}
	runCrash(t, crashCase{kills: kills, rows: 30000, minDelay: 2 * time.Second,
		config: "heap:\n  checkpoint_interval: 300ms\n",
		afterKill: func(t *testing.T, i int, dataDir string, seed int64) {
			mod, db, closeAll := restore(t, dataDir, seed)
			closed := false
			defer func() {
				if !closed {
					closeAll()
				}
			}()
			if len(mod.Tables()) == 0 {
				t.Logf("kill %d: no usable checkpoint", i)
				return
			}
			// Usable checkpoints alternate: left as is (the next start must
			// restore it), damaged (it must not), corrupt and lost in turn.
			usable++
			switch usable % 4 {
			case 1, 3:
				damaged[i] = "kept"
			case 2:
				damaged[i] = "corrupt"
				corruptIndexChunk(t, db, dataDir)
				// The flipped byte must have hit a chunk the checkpoint
				// reads: restored offline, it must be refused. When it is
				// not (the chunk found first belonged to no live stream),
				// the checkpoint is still good and the start must restore it.
				closeAll()
				closed = true
				again, _, closeAgain := restore(t, dataDir, seed)
				stillGood := len(again.Tables()) > 0
				closeAgain()
				if stillGood {
					damaged[i] = "kept"
					t.Logf("kill %d: the flipped byte missed every chunk the checkpoint reads; counted as kept", i)
				}
			case 0:
				damaged[i] = "lost"
				if err := db.Badger().Update(func(txn *badger.Txn) error {
					return txn.Delete([]byte{store.PrefixIndex, 'p'})
				}); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("kill %d: checkpoint %s", i, damaged[i])
		},
		output: func(t *testing.T, i int, log string) {
			if i == 0 {
				return
			}
			restored := strings.Contains(log, "in-memory HEAD restored from its checkpoint")
			if restored {
				restoredStarts++
			}
			switch damaged[i-1] {
			case "kept":
				if !restored {
					t.Fatalf("start %d did not restore the checkpoint found equal to the trees; log:\n%s", i, log)
				}
			case "corrupt":
				if restored || !strings.Contains(log, "checkpoint not usable; rebuilding it from the trees") {
					t.Fatalf("start %d after a corrupt checkpoint: restored %v; log:\n%s", i, restored, log)
				}
				rebuiltAfterDamage++
			case "lost":
				if restored {
					t.Fatalf("start %d restored a checkpoint whose position record was deleted; log:\n%s", i, log)
				}
				rebuiltAfterDamage++
			}
		},
		after: func(t *testing.T, file, dataDir, url string, seed int64) {
			_, m, closeMirror := mirrortest.Open(t, dataDir)
			headLSN := m.Head().EndLSN
			closeMirror()
			mod, _, closeAll := restore(t, dataDir, seed)
			defer closeAll()
			if len(mod.Tables()) != 2 || mod.LSN() != headLSN {
				t.Fatalf("seed %d: the shutdown checkpoint holds %d tables at %s, HEAD is %s", seed, len(mod.Tables()), mod.LSN(), headLSN)
			}
			t.Logf("%d checkpoints compared equal, %d starts restored one, %d starts rebuilt after damage", compared, restoredStarts, rebuiltAfterDamage)
			if restoredStarts == 0 || rebuiltAfterDamage == 0 {
				t.Fatalf("seed %d: the kills exercised too little (restored %d, rebuilt after damage %d)", seed, restoredStarts, rebuiltAfterDamage)
			}
		}})
}

// corruptIndexChunk damages the index of the model's checkpoint: a
// checkpoint written with a data directory (position record v5, v6) keeps
// each table's radix index as a file, <dataDir>/headimages/<gen>-<i>.i
// (v6: the image's head, its pages in parts beside it, written anew at
// every checkpoint, never linked), which a restore maps or reads after
// checking its length and header — every such file loses its last byte; a
// checkpoint of index chunks in the store (v4) gets one byte flipped in
// its first index stream chunk.
func corruptIndexChunk(t *testing.T, db *store.DB, dataDir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dataDir, "headimages", "*.i"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) > 0 {
		// Every generation's: a kill may have left a newer generation's
		// files that no position record names yet.
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(f, st.Size()-1); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	err = db.Badger().Update(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{store.PrefixIndex, 'c'}})
		var key, val []byte
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			// …table kind chunk:u32: an index ('i') chunk.
			if len(k) > 5 && k[len(k)-5] == 'i' && it.Item().ValueSize() > 16 {
				key = bytes.Clone(k)
				v, err := it.Item().ValueCopy(nil)
				if err != nil {
					it.Close()
					return err
				}
				val = v
				break
			}
		}
		it.Close()
		if key == nil {
			t.Fatal("no index chunk in the checkpoint")
		}
		val[len(val)/2] ^= 0x01
		return txn.Set(key, val)
	})
	if err != nil {
		t.Fatal(err)
	}
}
