package rowenc

import "strings"

// SessionParams returns the session settings under which PostgreSQL's
// output functions print the canonical text stored in vrow1 rows. Every
// connection whose text output becomes or is compared with mirror bytes
// (the replication stream, the initial copy, verify) must run with exactly
// these, e.g. as pgconn.Config.RuntimeParams:
//
//   - DateStyle=ISO, IntervalStyle=postgres, extra_float_digits=3: what
//     PostgreSQL's own logical replication subscriber forces;
//   - TimeZone=UTC: timestamptz text depends on it, and the subscriber does
//     not force it;
//   - bytea_output=hex: the escape format is ambiguous-looking and slower;
//   - client_encoding=UTF8: text is passed through unconverted from a UTF8
//     database (verify refuses other server encodings, see
//     verify.CheckSession).
//
// A fresh map is returned on each call; callers may modify it.
func SessionParams() map[string]string {
	return map[string]string{
		"DateStyle":          "ISO",
		"IntervalStyle":      "postgres",
		"extra_float_digits": "3",
		"TimeZone":           "UTC",
		"bytea_output":       "hex",
		"client_encoding":    "UTF8",
	}
}

// PinSession puts SessionParams into a connection's startup parameters,
// replacing any spelling of the same settings the connection string
// carried (GUC names are case-insensitive, so "timezone=..." in a URL
// would otherwise travel beside the pinned "TimeZone"). The stream, the
// copy and verify all open their connections through it.
func PinSession(params map[string]string) {
	pinned := SessionParams()
	for k := range params {
		for name := range pinned {
			if strings.EqualFold(k, name) {
				delete(params, k)
			}
		}
	}
	for name, v := range pinned {
		params[name] = v
	}
}
