package historytest

import (
	"context"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// Apply applies one transaction built by fn, like Commit, but does not
// wait for it to be written: it returns its end LSN as soon as the mirror
// has applied it, so a long history is built at apply speed rather than
// one fsync per commit (Commit reads the version back, which waits for
// the write). Call Mirror.Sync before reading what Apply wrote from
// another store handle.
func (f *Fixture) Apply(fn func(tx *Tx)) wal.LSN {
	f.T.Helper()
	ctx := context.Background()
	var tx Tx
	fn(&tx)
	f.LSN += 0x100
	f.Time = f.Time.Add(time.Second)
	info := wal.TxnInfo{Xid: uint32(f.LSN), CommitLSN: f.LSN, EndLSN: f.LSN + 8, CommitTime: f.Time}
	if err := f.Mirror.Begin(ctx, wal.TxnInfo{Xid: info.Xid, CommitLSN: info.CommitLSN, CommitTime: info.CommitTime}); err != nil {
		f.T.Fatal(err)
	}
	seen := map[*wal.Relation]bool{}
	for _, c := range tx.changes {
		if !seen[c.Relation] {
			seen[c.Relation] = true
			if err := f.Mirror.Relation(ctx, c.Relation); err != nil {
				f.T.Fatal(err)
			}
		}
		if err := f.Mirror.Change(ctx, c); err != nil {
			f.T.Fatal(err)
		}
	}
	if err := f.Mirror.Commit(ctx, info); err != nil {
		f.T.Fatal(err)
	}
	f.LSN = info.EndLSN
	return info.EndLSN
}
