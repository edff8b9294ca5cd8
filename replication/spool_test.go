package replication

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/sidecar-dev/sidecar/internal/seed"
)

// TestDiskSpoolModel runs random Append/Abort/Replay/Scan/Discard/Reset
// sequences against a map-of-slices model. Scan keeps the transaction:
// appends after it must land after what it read.
func TestDiskSpoolModel(t *testing.T) {
	t.Parallel()
	seed := seed.New(t, seedFlag)
	rng := rand.New(rand.NewPCG(seed, 0))

	s, err := NewDiskSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	type rec struct {
		sub uint32
		msg string
	}
	model := map[uint32][]rec{}
	aborted := map[uint32]map[uint32]bool{}
	for step := 0; step < 3000; step++ {
		xid := uint32(100 + rng.IntN(4)*10)
		sub := xid + uint32(rng.IntN(3))
		switch op := rng.IntN(22); {
		case op >= 20:
			var got []rec
			err := s.Scan(xid, func(sub uint32, msg []byte) error {
				got = append(got, rec{sub, string(msg)})
				return nil
			})
			if err != nil {
				t.Fatalf("seed %d step %d: scan: %v", seed, step, err)
			}
			if want := model[xid]; !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Fatalf("seed %d step %d: scan xid %d: got %d messages, want %d", seed, step, xid, len(got), len(want))
			}
		case op < 14:
			msg := fmt.Sprintf("m%d-%s", step, string(make([]byte, rng.IntN(300))))
			if err := s.Append(xid, sub, []byte(msg)); err != nil {
				t.Fatalf("seed %d step %d: append: %v", seed, step, err)
			}
			if aborted[xid][sub] {
				continue // an aborted subtransaction makes no further changes
			}
			model[xid] = append(model[xid], rec{sub, msg})
		case op < 16:
			if err := s.Abort(xid, sub); err != nil {
				t.Fatalf("seed %d step %d: abort: %v", seed, step, err)
			}
			if sub == xid {
				delete(model, xid)
				delete(aborted, xid)
				continue
			}
			if _, open := model[xid]; !open {
				continue
			}
			if aborted[xid] == nil {
				aborted[xid] = map[uint32]bool{}
			}
			aborted[xid][sub] = true
			var keep []rec
			for _, r := range model[xid] {
				if r.sub != sub {
					keep = append(keep, r)
				}
			}
			model[xid] = keep
		case op < 18:
			var got []rec
			err := s.Replay(xid, func(msg []byte) error {
				got = append(got, rec{msg: string(msg)})
				return nil
			})
			if err != nil {
				t.Fatalf("seed %d step %d: replay: %v", seed, step, err)
			}
			var want []rec
			for _, r := range model[xid] {
				want = append(want, rec{msg: r.msg})
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d step %d: replay xid %d: got %d messages, want %d", seed, step, xid, len(got), len(want))
			}
			delete(model, xid)
			delete(aborted, xid)
		case op < 19:
			if err := s.Discard(xid); err != nil {
				t.Fatalf("seed %d step %d: discard: %v", seed, step, err)
			}
			delete(model, xid)
			delete(aborted, xid)
		case op == 19:
			if err := s.Reset(); err != nil {
				t.Fatalf("seed %d step %d: reset: %v", seed, step, err)
			}
			model = map[uint32][]rec{}
			aborted = map[uint32]map[uint32]bool{}
		}
	}
	dir := s.dir
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("spool directory %s still exists after Close: %v", dir, err)
	}
}

// TestDiskSpoolSweepsDeadOwners: a spool directory whose owner died is
// removed by the next NewDiskSpool in the same parent; a live owner's is
// kept.
func TestDiskSpoolSweepsDeadOwners(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dead := filepath.Join(parent, spoolPrefix+"dead")
	live := filepath.Join(parent, spoolPrefix+"live")
	for dir, pid := range map[string]int{dead: deadPID(t), live: os.Getpid()} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, spoolOwnerPID), []byte(strconv.Itoa(pid)), 0o600)
		os.WriteFile(filepath.Join(dir, "xid-7"), make([]byte, 1024), 0o600)
	}
	s, err := NewDiskSpool(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("dead owner's spool still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("live owner's spool removed: %v", err)
	}
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
