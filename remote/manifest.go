package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sidecar-dev/sidecar/wal"
)

// ManifestFormat is the manifest's format version.
const ManifestFormat = 1

const manifestName = "manifest.json"

// Manifest is a sidecar's remote history: everything a follower or a
// restore needs, found without a LIST. It is replaced only by a
// compare-and-swap on its ETag by the holder of the lease (Writer).
type Manifest struct {
	Format int `json:"format"`
	// Epoch is the lease epoch of the writer that wrote it: a writer
	// refuses a manifest of a later epoch (it was fenced out).
	Epoch  uint64 `json:"epoch"`
	Holder string `json:"holder"`
	// Durable is the remote-durable LSN: every commit at or below it is
	// in Segments, every node its versions need in Packs.
	Durable     wal.LSN `json:"durable"`
	DurableText string  `json:"durable_lsn"`
	// Settled is the LSN up to which the slot was acknowledged while idle
	// past the last commit (no changes between): a restore records it, so
	// the restored sidecar recognises its slot (follow.SettledFile).
	Settled  wal.LSN      `json:"settled,omitempty"`
	Packs    []PackRef    `json:"packs"`
	Segments []SegmentRef `json:"segments"`
	// Tags (name → LSN) and branches (names), as of Durable, for listing
	// without a restore.
	Tags     map[string]wal.LSN `json:"tags,omitempty"`
	Branches []string           `json:"branches,omitempty"`
	// Horizon is the retention horizon: versions below it expired.
	Horizon wal.LSN `json:"horizon,omitempty"`
	// Roots are the tree roots the retained versions need, as of Durable
	// (hex addresses): remote GC marks the nodes of Packs from them.
	// Empty in a manifest written before remote GC: then GC leaves its
	// packs alone.
	Roots []string `json:"roots,omitempty"`
	// Pending are packs no longer in Packs that GC deletes once Since +
	// its grace has passed and no manifest under the bucket prefix
	// references them (a reader of an older manifest may still read them).
	Pending []PendingPack `json:"pending,omitempty"`
	// Fork is the URL of the history this one was forked from (its packs
	// are referenced with their Prefix, never copied).
	Fork    string    `json:"fork,omitempty"`
	Updated time.Time `json:"updated"`
}

// PendingPack is a pack waiting for deletion since Since.
type PendingPack struct {
	PackRef
	Since time.Time `json:"since"`
}

// SegmentRef names one commit-log segment: the mirror's records with
// store versions in (Since, Until], durable LSN Durable at its end.
type SegmentRef struct {
	Name string `json:"name"`
	// Prefix is the writer's prefix when not this manifest's (a fork's
	// inherited segments).
	Prefix  string  `json:"prefix,omitempty"`
	Since   uint64  `json:"since"`
	Until   uint64  `json:"until"`
	Durable wal.LSN `json:"durable"`
	Bytes   int64   `json:"bytes"`
	// Store identifies the local store whose versions Since and Until
	// count (its StoreIdentity). Versions of another store (the data
	// directory before a restore, another machine's) mean nothing here.
	Store string `json:"store,omitempty"`
}

// ReadManifest returns the manifest under c's prefix and its ETag, or an
// error wrapping ErrNotExist.
func ReadManifest(ctx context.Context, c *Client) (*Manifest, string, error) {
	data, etag, err := c.Get(ctx, manifestName)
	if err != nil {
		return nil, "", fmt.Errorf("read manifest of %s: %w", c.loc, err)
	}
	m, err := decodeManifest(data)
	if err != nil {
		return nil, "", fmt.Errorf("manifest of %s: %w", c.loc, err)
	}
	return m, etag, nil
}

func decodeManifest(data []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("format %d, this sidecar reads %d", m.Format, ManifestFormat)
	}
	return &m, nil
}

// encodeManifest stamps m's format and LSN text and returns the bytes a
// commit writes: the same manifest always encodes to the same bytes, which
// is how a writer recognises its own write whose answer was lost.
func encodeManifest(m *Manifest) ([]byte, error) {
	m.Format = ManifestFormat
	m.DurableText = m.Durable.String()
	return json.MarshalIndent(m, "", " ")
}

// ErrFenced is wrapped when a writer's manifest write is refused because
// another writer took the prefix over (a later epoch): the writer must stop.
var ErrFenced = errors.New("remote prefix taken over by another writer")

// commitManifest replaces the manifest (etag "" = create) with m, whose
// Epoch is the writer's. A refused CAS is judged by re-reading: the same
// bytes mean our write landed (its answer was lost); a later epoch means
// we were fenced out; anything else is another writer of our epoch, which
// the lease forbids, so also fenced.
func commitManifest(ctx context.Context, c *Client, m *Manifest, etag string) (string, error) {
	data, err := encodeManifest(m)
	if err != nil {
		return "", err
	}
	cond := Cond{IfMatch: etag}
	if etag == "" {
		cond = Cond{IfAbsent: true}
	}
	newTag, err := c.Put(ctx, manifestName, data, cond)
	if err == nil {
		return newTag, nil
	}
	if !errors.Is(err, ErrPrecondition) {
		return "", fmt.Errorf("write manifest: %w", err)
	}
	cur, curTag, rerr := c.Get(ctx, manifestName)
	if rerr == nil && bytes.Equal(cur, data) {
		return curTag, nil
	}
	if rerr == nil {
		if other, derr := decodeManifest(cur); derr == nil {
			return "", fmt.Errorf("write manifest of %s at epoch %d: %w (now epoch %d, holder %q)", c.loc, m.Epoch, ErrFenced, other.Epoch, other.Holder)
		}
	}
	return "", fmt.Errorf("write manifest of %s at epoch %d: %w", c.loc, m.Epoch, ErrFenced)
}

// Key returns the segment's bucket-relative object key for a manifest
// under own.
func (r SegmentRef) Key(own Location) string {
	if r.Prefix != "" {
		return Location{Bucket: own.Bucket, Prefix: r.Prefix}.key(r.Name)
	}
	return own.key(r.Name)
}
