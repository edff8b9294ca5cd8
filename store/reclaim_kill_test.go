package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

const (
	killGenChunks = 12
	killChunk     = 128 << 10
	killVlogFile  = 1 << 20
)

func killChunkKey(gen uint64, i int) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64([]byte{PrefixIndex, 'c'}, gen), uint32(i))
}

// killChunkValue is chunk i of generation gen: derived from both, so the
// parent checks a generation without the child telling it the bytes.
func killChunkValue(gen uint64, i int) []byte {
	r := rand.New(rand.NewPCG(gen, uint64(i)))
	v := make([]byte, killChunk)
	for j := 0; j < len(v); j += 8 {
		binary.LittleEndian.PutUint64(v[j:], r.Uint64())
	}
	return v
}

// TestReclaimKill9Child is the process TestReclaimKill9 kills: it writes
// checkpoint-like generations (the next, synced, acknowledged on stdout,
// then the previous one deleted) and reclaims the value log whenever it
// is due, as the daemon's AutoGC does, until killed.
func TestReclaimKill9Child(t *testing.T) {
	dir := os.Getenv("RECLAIM_KILL_DIR")
	if dir == "" {
		t.Skip("run by TestReclaimKill9")
	}
	db, err := Open(Options{Dir: dir, ValueLogFileSize: killVlogFile})
	if err != nil {
		fmt.Println("OPEN", err)
		os.Exit(2)
	}
	ctx := context.Background()
	gen := killTopGeneration(t, db) + 1
	last := db.ValueLogBytes()
	for ; ; gen++ {
		if err := RetryBlocked(ctx, func() error {
			wb := db.Badger().NewWriteBatch()
			defer wb.Cancel()
			for i := range killGenChunks {
				if err := wb.Set(killChunkKey(gen, i), killChunkValue(gen, i)); err != nil {
					return err
				}
			}
			return wb.Flush()
		}); err != nil {
			fmt.Println("WRITE", err)
			os.Exit(2)
		}
		if err := db.Sync(); err != nil {
			fmt.Println("SYNC", err)
			os.Exit(2)
		}
		fmt.Printf("ACK %d\n", gen)
		if err := RetryBlocked(ctx, func() error {
			wb := db.Badger().NewWriteBatch()
			defer wb.Cancel()
			for g := gen - 1; g > 0 && g+3 > gen; g-- {
				for i := range killGenChunks {
					if err := wb.Delete(killChunkKey(g, i)); err != nil {
						return err
					}
				}
			}
			return wb.Flush()
		}); err != nil {
			fmt.Println("DELETE", err)
			os.Exit(2)
		}
		if db.ReclaimDue(last) {
			if _, last, err = db.ReclaimValueLog(ctx); err != nil {
				fmt.Println("RECLAIM", err)
				os.Exit(2)
			}
			fmt.Printf("RECLAIMED %d\n", last)
		}
	}
}

// killTopGeneration is the newest generation with a chunk in db.
func killTopGeneration(t *testing.T, db *DB) uint64 {
	var top uint64
	prefix := []byte{PrefixIndex, 'c'}
	if err := db.Badger().View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			top = max(top, binary.BigEndian.Uint64(it.Item().Key()[len(prefix):]))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return top
}

// TestReclaimKill9 SIGKILLs a process that writes, deletes and reclaims
// (ReclaimValueLog: a flush, a compaction and value-log rewrites) in a
// loop, at random points, six times on one directory: after each kill the
// store opens and the newest generation acknowledged (synced before its
// ACK) or a newer one is whole, byte for byte; and the value log stays
// bounded over the kills (the reclaims gave the deleted generations
// back).
func TestReclaimKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process six times")
	}
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	reclaims := 0
	for kill := range 6 {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestReclaimKill9Child$")
		cmd.Env = append(os.Environ(), "RECLAIM_KILL_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a random number of acknowledged generations (past
		// at least one reclaim's worth of garbage most times).
		want := 4 + rng.IntN(30)
		var acked uint64
		sc := bufio.NewScanner(out)
		for sc.Scan() && want > 0 {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "ACK "):
				acked, _ = strconv.ParseUint(line[4:], 10, 64)
				want--
			case strings.HasPrefix(line, "RECLAIMED "):
				reclaims++
			case strings.HasPrefix(line, "OPEN"), strings.HasPrefix(line, "WRITE"), strings.HasPrefix(line, "SYNC"),
				strings.HasPrefix(line, "DELETE"), strings.HasPrefix(line, "RECLAIM "):
				t.Fatalf("seed %d kill %d: child failed: %s\n%s", seed, kill, line, stderr.String())
			}
		}
		// A random moment inside the next write, delete or reclaim.
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if acked == 0 {
			t.Fatalf("seed %d kill %d: the child acknowledged nothing\n%s", seed, kill, stderr.String())
		}
		db, err := Open(Options{Dir: dir, ValueLogFileSize: killVlogFile})
		if err != nil {
			t.Fatalf("seed %d kill %d: open after the kill: %v", seed, kill, err)
		}
		whole := func(gen uint64) bool {
			ok := true
			if err := db.Badger().View(func(txn *badger.Txn) error {
				for i := range killGenChunks {
					it, err := txn.Get(killChunkKey(gen, i))
					if err != nil {
						ok = false
						return nil
					}
					v, err := it.ValueCopy(nil)
					if err != nil {
						return err
					}
					if !bytes.Equal(v, killChunkValue(gen, i)) {
						return fmt.Errorf("generation %d chunk %d differs", gen, i)
					}
				}
				return nil
			}); err != nil {
				t.Fatalf("seed %d kill %d: %v", seed, kill, err)
			}
			return ok
		}
		top := killTopGeneration(t, db)
		found := false
		for g := acked; g <= top && !found; g++ {
			found = whole(g)
		}
		vlog := db.ValueLogBytes()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if !found {
			t.Fatalf("seed %d kill %d: generation %d was acknowledged, and neither it nor a newer one (top %d) is whole", seed, kill, acked, top)
		}
		// Live: up to three generations (4.5 MiB); written by now: ~1.5 MiB
		// per acknowledged one.
		if bound := int64(24 << 20); vlog > bound {
			t.Errorf("seed %d kill %d: value log %d B after %d generations, above %d: the deleted ones were not given back", seed, kill, vlog, acked, bound)
		}
		t.Logf("kill %d: acknowledged %d, top %d, value log %d B", kill, acked, top, vlog)
	}
	if reclaims == 0 {
		t.Errorf("seed %d: no reclaim ran before the kills", seed)
	}
}
