package builtin

import (
	"crypto/rand"

	"github.com/sidecar-dev/sidecar/types"
)

// addUUID registers gen_random_uuid(): a version 4 (random) UUID, as
// PostgreSQL 13+'s, from the operating system's random source;
// volatile, so evaluated per row (sql/exec's rowWise) and never folded.
func (r *Registry) addUUID() {
	r.def("gen_random_uuid", types.UUID, func(_ *Context, _ []types.Value, _ []OID) (types.Value, error) {
		var u types.UUIDVal
		if _, err := rand.Read(u[:]); err != nil {
			return nil, errorf("XX000", "could not generate random values: %v", err)
		}
		u[6] = u[6]&0x0f | 0x40 // version 4
		u[8] = u[8]&0x3f | 0x80 // variant RFC 4122
		return u, nil
	}).volatile()
}
