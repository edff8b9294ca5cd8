package exec

import (
	"strings"

	"github.com/sidecar-dev/sidecar/sql/builtin"
	"github.com/sidecar-dev/sidecar/types"
)

// isJSONToRecord says whether a function in FROM is json[b]_to_record
// or json[b]_to_recordset with a column definition list
// (plan/jsonrecord.go).
func isJSONToRecord(name string) bool {
	switch name {
	case "json_to_record", "jsonb_to_record", "json_to_recordset", "jsonb_to_recordset":
		return true
	}
	return false
}

// jsonRecordSeries is the iterator of json[b]_to_record(set) (ok false
// for other functions): the library's rows, typed by the scan's
// columns (the datum is in memory already, and its rows are no larger).
func (s *srfOp) jsonRecordSeries(vals []types.Value) (func() (types.Value, bool, error), bool, error) {
	if !isJSONToRecord(s.f.Name) {
		return nil, false, nil
	}
	names := make([]string, len(s.f.Cols))
	ts := make([]types.OID, len(s.f.Cols))
	mods := make([]int32, len(s.f.Cols))
	for i, id := range s.f.Cols {
		c := s.e.md.Column(id)
		names[i], ts[i], mods[i] = c.Name, c.Type.OID, c.Type.Mod
	}
	rows, err := builtin.JSONToRecordRows(s.f.Name, vals[0], names, ts, mods)
	if err != nil {
		return nil, true, libraryErr(err)
	}
	return rowsSeries(rows), true, nil // jsonsrf.go
}

// jsonToRecordNoRows is srfNoRows for json[b]_to_record(set): a NULL
// argument is no rows only for the set forms (to_record is not a
// set-returning function: NULL is its one row of NULLs).
func jsonToRecordNoRows(name string, vals []types.Value) bool {
	return strings.HasSuffix(name, "set") && vals[0] == nil
}
