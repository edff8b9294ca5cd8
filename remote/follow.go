package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sidecar-dev/sidecar/addr"
	"github.com/sidecar-dev/sidecar/internal/durable"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/store"
)

// FollowState is how far a local directory has applied a remote's
// manifest: the segments in order, the packs by name. Restore starts from
// the zero value; a read-only follower keeps it in a file (SaveFollowState).
type FollowState struct {
	URL         string          `json:"url"`
	ETag        string          `json:"etag"`
	Segments    int             `json:"segments"`
	LastSegment string          `json:"last_segment"`
	Packs       map[string]bool `json:"packs"`
}

// FollowStateFile is the follower's state file in its data directory.
const FollowStateFile = "remote-follow.json"

// LoadFollowState reads path (zero state when absent).
func LoadFollowState(path string) (FollowState, error) {
	var st FollowState
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// SaveFollowState writes st to path durably (internal/durable): a crash
// leaves the old state or the new one.
func SaveFollowState(path string, st FollowState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return durable.WriteFile(path, b, 0o600)
}

// Apply brings db from st to the manifest m (read with etag): first every
// pack st lacks (one GET each, every node checked), so that no record
// applied names a node the directory lacks, then the segments past st in
// order, then a sync. A manifest whose segments do not continue st's (a
// prefix written anew) is an error: start from an empty directory.
func Apply(ctx context.Context, c *Client, db *store.DB, m *Manifest, etag string, st *FollowState) (RestoreStats, error) {
	start := time.Now()
	var rs RestoreStats
	if st.Segments > len(m.Segments) || (st.Segments > 0 && m.Segments[st.Segments-1].Name != st.LastSegment) {
		return rs, fmt.Errorf("the manifest of %s no longer continues the %d segments applied here (last %s): its history was written anew; follow it from an empty data_dir", c.loc, st.Segments, st.LastSegment)
	}
	if st.Packs == nil {
		st.Packs = map[string]bool{}
	}
	in0 := c.bytesIn.Load()
	ns := store.NewNodeStore[*prolly.Node](db, prolly.NodeCodec{})
	rd := NewStore(c, prolly.NewMemStore(prolly.MemStoreOptions{}), StoreOptions{})
	for _, p := range m.Packs {
		if st.Packs[p.id()] {
			continue
		}
		if err := rd.ReadPack(ctx, p, func(h addr.Hash, data []byte) error {
			n, err := prolly.DecodeNode(data)
			if err != nil {
				return fmt.Errorf("node %s of pack %s: %w", h.Short(), p.Name, err)
			}
			rs.Nodes++
			return ns.PutUncached(ctx, h, data, n)
		}); err != nil {
			return rs, err
		}
		rs.Packs++
	}
	if err := ns.Close(ctx); err != nil {
		return rs, fmt.Errorf("write nodes: %w", err)
	}
	for _, s := range m.Segments[st.Segments:] {
		seg, _, err := c.get(ctx, s.Key(c.loc), -1, 0)
		if err != nil {
			return rs, fmt.Errorf("segment: %w", err)
		}
		n, err := applySegment(db.Badger(), seg)
		if err != nil {
			return rs, fmt.Errorf("segment %s: %w", s.Name, err)
		}
		rs.Segments++
		rs.Records += n
	}
	if err := db.Sync(); err != nil {
		return rs, fmt.Errorf("sync: %w", err)
	}
	for _, p := range m.Packs {
		st.Packs[p.id()] = true
	}
	st.URL, st.ETag = c.loc.String(), etag
	if n := len(m.Segments); n > 0 {
		st.Segments, st.LastSegment = n, m.Segments[n-1].Name
	}
	rs.Durable, rs.Settled = m.Durable, m.Settled
	rs.BytesFetched = c.bytesIn.Load() - in0
	rs.Took = time.Since(start)
	return rs, nil
}
