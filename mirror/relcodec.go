package mirror

import (
	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/wal"
)

// codecAt is the key codec of the trees made with rel, an older relation
// of a table whose current one is cur and codec its codec: a table
// re-created (or re-keyed) under its name keeps its older versions in the
// key encoding of the table they were copied from, so reading them with
// today's codec would find none of their keys.
func codecAt(rel, cur *wal.Relation, codec *rowenc.KeyCodec) (*rowenc.KeyCodec, error) {
	if rel == cur || sameKeyKinds(rel, cur) {
		return codec, nil
	}
	var t table
	if err := t.setRelation(rel); err != nil {
		return nil, err
	}
	return t.codec, nil
}

// sameKeyKinds reports whether a and b key their rows alike: the same
// identity and key columns of the same types.
func sameKeyKinds(a, b *wal.Relation) bool {
	if a == nil || b == nil || a.Identity != b.Identity {
		return false
	}
	ka, kb := a.KeyColumns(), b.KeyColumns()
	if len(ka) != len(kb) {
		return false
	}
	for i := range ka {
		if rowenc.KindForOID(a.Columns[ka[i]].TypeOID) != rowenc.KindForOID(b.Columns[kb[i]].TypeOID) {
			return false
		}
	}
	return true
}
