package exec

import (
	"fmt"

	"github.com/sidecar-dev/sidecar/types"
)

// maxAllocSize is PostgreSQL's MaxAllocSize: no string buffer (and so
// no string_agg result) reaches it.
const maxAllocSize = 0x3fffffff

// stringAggSize fails as PostgreSQL does when string_agg's result would
// not fit a string buffer: enlargeStringInfo's 54000 "out of memory" at
// the first delimiter or value appended past it. Reachable only when
// the working memory holds the rows (sidecar.work_mem past 1 GB).
// PostgreSQL 16 and later also hold the first row's delimiter while
// aggregating (15 does not): a size between the two limits is refused
// (0A000), the major deciding.
func stringAggSize(rows []*extraRow, text func(types.Value) string) error {
	var pieces []int64
	for i, r := range rows {
		if i > 0 {
			pieces = append(pieces, int64(len(text(r.vals[1]))))
		}
		pieces = append(pieces, int64(len(text(r.vals[0]))))
	}
	var first int64
	if len(rows) > 0 {
		first = int64(len(text(rows[0].vals[1])))
	}
	return stringAggLimit(pieces, first)
}

// stringAggLimit is stringAggSize's verdict on the pieces appended in
// order (PostgreSQL 15's: values and the delimiters between them) when
// the first row's delimiter has first bytes.
func stringAggLimit(pieces []int64, first int64) error {
	var n int64
	for _, d := range pieces {
		if n+d >= maxAllocSize {
			return &types.Error{Code: "54000", Message: "out of memory",
				Detail: fmt.Sprintf("Cannot enlarge string buffer containing %d bytes by %d more bytes.", n, d)}
		}
		n += d
	}
	if n+first >= maxAllocSize {
		return unsupported("a string_agg result within a delimiter of 1 GB (PostgreSQL's major decides whether it fails)")
	}
	return nil
}
