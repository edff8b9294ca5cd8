package remote

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrForkExists is wrapped when the fork's prefix already has a manifest.
var ErrForkExists = errors.New("remote prefix already holds a history")

// Fork starts a new history under dst's prefix from src's, as of src's
// manifest now: dst's manifest references src's packs and segments (with
// their Prefix) instead of copying them, so a fork costs one GET and one
// PUT, and content addressing shares every node. src's GC never deletes a
// pack dst's manifest references. dst must be in the same bucket and hold
// no manifest; a sidecar then restores from dst (Restore) and writes it as
// its own (OpenWriter), uploading only what it adds.
func Fork(ctx context.Context, src, dst *Client) (*Manifest, error) {
	if src.loc.Bucket != dst.loc.Bucket {
		return nil, fmt.Errorf("fork %s into %s: a fork references its origin's packs, so both must be in one bucket", src.loc, dst.loc)
	}
	if src.loc.Prefix == "" || dst.loc.Prefix == "" {
		return nil, fmt.Errorf("fork %s into %s: both need a prefix (a pack reference names its owner's)", src.loc, dst.loc)
	}
	if src.loc.Prefix == dst.loc.Prefix {
		return nil, fmt.Errorf("fork %s into itself", src.loc)
	}
	if _, _, err := ReadManifest(ctx, dst); err == nil {
		return nil, fmt.Errorf("fork into %s: %w", dst.loc, ErrForkExists)
	} else if !errors.Is(err, ErrNotExist) {
		return nil, fmt.Errorf("fork: %w", err)
	}
	m, _, err := ReadManifest(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	f := &Manifest{
		Durable: m.Durable, Settled: m.Settled, Tags: m.Tags, Branches: m.Branches, Horizon: m.Horizon,
		Roots: m.Roots, Fork: src.loc.String(), Updated: time.Now().UTC(),
	}
	for _, p := range m.Packs {
		if p.Prefix == "" {
			p.Prefix = src.loc.Prefix
		}
		if p.Prefix == dst.loc.Prefix {
			p.Prefix = "" // a fork of a fork back into its origin's prefix
		}
		f.Packs = append(f.Packs, p)
	}
	for _, s := range m.Segments {
		if s.Prefix == "" {
			s.Prefix = src.loc.Prefix
		}
		if s.Prefix == dst.loc.Prefix {
			s.Prefix = ""
		}
		f.Segments = append(f.Segments, s)
	}
	if _, err := commitManifest(ctx, dst, f, ""); err != nil {
		if errors.Is(err, ErrFenced) {
			return nil, fmt.Errorf("fork into %s: %w", dst.loc, ErrForkExists)
		}
		return nil, fmt.Errorf("fork into %s: %w", dst.loc, err)
	}
	return f, nil
}
