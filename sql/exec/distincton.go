package exec

import (
	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// DISTINCT ON keeps the first row of each group in its input's order:
// PostgreSQL's Unique over a Sort on the ORDER BY keys. Rows the sort
// leaves tied (equal on every ORDER BY key) come out of PostgreSQL's
// sort in an order its plan decides (quicksort is not stable), so when
// a group's first row ties with another row of the group that prints
// differently, PostgreSQL's answer is one of them and the sidecar's may
// be the other: `SELECT DISTINCT ON (org) org, id FROM t ORDER BY org`
// answered other ids than PostgreSQL. Such a group is refused at run
// time (0A000), as a LIMIT whose cut falls inside tied rows is
// (limitorder.go). Without an ORDER BY every row of a group is a
// candidate. A LIMIT above a DISTINCT ON reads the tie flags of the
// rows it passes on (the sort's, carried across the rows it drops).

// distinctOnUndetermined refuses a DISTINCT ON whose kept row depends
// on the order of tied rows.
var distinctOnUndetermined = &types.Error{Code: types.CodeUnsupported,
	Message: "not supported yet: DISTINCT ON whose row for a group depends on the order PostgreSQL's sort leaves tied rows in (no ORDER BY, or one leaving different rows of a group tied); add ORDER BY keys that tell the rows apart"}

// onTies follows, for a DISTINCT ON, the run of input rows tied on the
// sort keys that the current row belongs to, and the first row of each
// group that began in that run.
type onTies struct {
	oids []plan.OID
	run  map[int][]types.Value // group → its kept row, for groups whose kept row is in the current run
	mem  *memAcct
	// broken: a row since the last kept one did not tie with the row
	// before it (the next kept row does not tie with the last).
	broken, kept bool
}

// next takes the next input row's tie flag (always true without a
// sort: every row is a candidate for every position).
func (t *onTies) next(tied bool) {
	if !tied {
		clear(t.run)
		t.broken = true
	}
}

// dup checks a row of group g that DISTINCT ON drops: it must print as
// the group's kept row when the two are tied.
func (t *onTies) dup(g int, b *Batch, i int) error {
	first, ok := t.run[g]
	if !ok {
		return nil
	}
	for c, oid := range t.oids {
		if !sameValue(oid, first[c], b.Vecs[c][i]) {
			return distinctOnUndetermined
		}
	}
	return nil
}

// keep records the kept row of a new group g and returns whether it
// ties with the kept row before it (for a LIMIT above).
func (t *onTies) keep(g int, b *Batch, i int) (bool, error) {
	r := b.Row(i)
	if err := t.mem.grow("DISTINCT", rowBytes(r)); err != nil {
		return false, err
	}
	t.run[g] = r
	tied := t.kept && !t.broken
	t.kept, t.broken = true, false
	return tied, nil
}

// onTies starts a DISTINCT ON's check over its input's columns.
func (d *distinctOp) onTies(mem *memAcct) (*onTies, error) {
	oids, err := d.e.oidsOf(d.in.cols())
	if err != nil {
		return nil, err
	}
	return &onTies{oids: oids, run: map[int][]types.Value{}, mem: mem}, nil
}

func (d *distinctOp) trackTieFlags() { d.trackTies = true }
func (d *distinctOp) flags() []bool  { return d.tieFlags }
