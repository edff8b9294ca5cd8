package builtin

import "github.com/sidecar-dev/sidecar/types"

// jsonNullKey is json_build_object's error for a NULL key in the
// registry's major, nil when there is none or when buildObject's own
// (22023 "argument n: key must not be null", PostgreSQL 14 and 15, and
// jsonb_build_object on every major) is the major's: from 16
// json_build_object fails 22004 "null value not allowed for object key"
// (the differential test on 14–18 found it). An odd argument count is
// buildObject's error, raised first as PostgreSQL does.
func (r *Registry) jsonNullKey(t OID, a []types.Value) error {
	if t != jsOID || len(a)%2 != 0 {
		return nil
	}
	for i := 0; i < len(a); i += 2 {
		if a[i] != nil {
			continue
		}
		yes, known := r.atLeast(160000)
		if !known {
			return unsupported("a NULL key of json_build_object when the server's major is not known (its error differs by major)")
		}
		if yes {
			return &Error{Code: CodeNullNotAllowed, Message: "null value not allowed for object key"}
		}
		return nil
	}
	return nil
}
