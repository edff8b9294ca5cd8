package builtin

import (
	"strings"

	"github.com/sidecar-dev/sidecar/types"
)

// The json aggregates' final values (json_agg, jsonb_agg,
// json_object_agg, jsonb_object_agg): the executor gathers the inputs in
// their ORDER BY order and hands them here. NULL for no input rows is
// the executor's (these functions are called with at least one).

// JSONConvertible reports whether values of type t have a JSON form in
// the library (sqlNode): the argument types the json builders and
// aggregates accept.
func JSONConvertible(t OID) bool {
	switch t {
	case tx, types.Varchar, types.Bpchar, types.Name, types.Unknown, types.Char,
		types.Int2, i4, i8, types.Numeric, bo, jsOID, jsbOID,
		types.Float4, types.Float8, types.Date, types.Timestamp, types.Time, types.Timetz, types.Interval, types.UUID,
		types.Timestamptz, types.RecordOID, types.Bytea:
		return true
	}
	// Arrays of those.
	e := types.ElemOf(t)
	return e != 0 && types.ElemOf(e) == 0 && JSONConvertible(e)
}

// jsonElemText is v (of type t) as json_agg and json_object_agg append
// it: NULL as null, a json value as written, anything else as to_json
// prints it.
func jsonElemText(v types.Value, t OID, z *types.Zone) (string, error) {
	switch {
	case v == nil:
		return "null", nil
	case t == jsOID || t == jsbOID:
		return str(v), nil
	}
	n, err := sqlNode(v, t, z)
	if err != nil {
		return "", err
	}
	return builtValue(n), nil
}

// JSONAgg is json_agg (t json: "[a, b]", values as written) or jsonb_agg
// (t jsonb) over vals of type vt, in order; z is the session's zone (a
// timestamptz's offset).
func JSONAgg(t OID, vals []types.Value, vt OID, z *types.Zone) (types.Value, error) {
	if t == jsbOID {
		return buildArray(t, vals, repeatOID(vt, len(vals)), z)
	}
	var b strings.Builder
	b.WriteByte('[')
	structured := types.ElemOf(vt) != 0 || vt == types.RecordOID
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
			if structured && v != nil {
				b.WriteString("\n ") // json_agg_transfn: arrays after the first on a line of their own
			}
		}
		s, err := jsonElemText(v, vt, z)
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
	}
	b.WriteByte(']')
	return b.String(), nil
}

// JSONObjectAgg is json_object_agg ("{ "k" : v, … }", duplicate keys
// kept) or jsonb_object_agg (a jsonb object, the last duplicate
// winning) over the pairs keys[i], vals[i] of types kt and vt. A NULL
// key is PostgreSQL's 22023; a json or jsonb key is refused (PostgreSQL
// refuses non-scalar keys; which json keys it accepts is not settled
// here).
func JSONObjectAgg(t OID, keys, vals []types.Value, kt, vt OID, z *types.Zone) (types.Value, error) {
	if kt == jsOID || kt == jsbOID {
		return nil, unsupported("a %s key in %s", types.NameOf(kt), fnName(t, "object_agg"))
	}
	for _, k := range keys {
		if k == nil {
			return nil, errorf(CodeInvalidParameter, "field name must not be null")
		}
	}
	if t == jsbOID {
		args, oids := make([]types.Value, 0, 2*len(keys)), make([]OID, 0, 2*len(keys))
		for i := range keys {
			args, oids = append(args, keys[i], vals[i]), append(oids, kt, vt)
		}
		return buildObject(t, args, oids, z)
	}
	var b strings.Builder
	b.WriteString("{ ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		kn, err := sqlNode(k, kt, z)
		if err != nil {
			return nil, err
		}
		key := kn.str
		if kn.kind != jString {
			key = builtValue(kn) // numbers and booleans are quoted as keys
		}
		escapeJSON(&b, key)
		b.WriteString(" : ")
		s, err := jsonElemText(vals[i], vt, z)
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
	}
	b.WriteString(" }")
	return b.String(), nil
}

func repeatOID(t OID, n int) []OID {
	out := make([]OID, n)
	for i := range out {
		out[i] = t
	}
	return out
}
