package mirror

import (
	"testing"

	"github.com/sidecar-dev/sidecar/wal"
)

// olderRecord is rel as a sidecar before a section wrote it — its facts
// copied, the section's fields cleared by strip — checked to be a prefix
// of rel's encoding b (the section is appended after an older record's
// bytes), and decoded.
func olderRecord(t *testing.T, rel *wal.Relation, b []byte, strip func(*wal.Facts)) *wal.Relation {
	t.Helper()
	old := *rel
	of := *rel.Facts
	if of.Schema != nil {
		os := *of.Schema
		of.Schema = &os
	}
	strip(&of)
	old.Facts = &of
	ob := encodeRel(&old)
	if len(ob) >= len(b) || string(b[:len(ob)]) != string(ob) {
		t.Fatalf("the section is not appended after the older record's bytes")
	}
	got, err := decodeRel(ob)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
