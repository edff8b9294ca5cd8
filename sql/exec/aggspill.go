package exec

import (
	"errors"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// Hash aggregation past the working memory (spillpart.go), in the shape
// of PostgreSQL 13's spilling HashAgg: the groups already held keep
// taking their rows; a row of any other group is written, as its group
// key and each aggregate's input (whether the row passes the FILTER,
// and the argument's value), to the partition file its key's hash
// chooses. The held groups are emitted, given back, and each file is
// then aggregated on its own (partitioned again if it still does not
// fit): a group's rows all meet in one file, and in their input order.

// aggSpillOp names the operator in errors and file names.
const aggSpillOp = "hash aggregate"

// spillable says whether the aggregation may spill: a temporary
// directory is set and every aggregate's input can be written (array_agg
// carries its ORDER BY keys in a form the files do not hold).
func (a *aggOp) spillable() bool {
	if !a.e.canSpill() {
		return false
	}
	for _, f := range a.aggs {
		if f.grouping == nil && plan.OrderedAggArgs(f.a.Name) > 0 {
			return false
		}
	}
	return true
}

// spillOIDs is the types of a spilled row: the group key, then per
// aggregate whether the row counts (bool) and its argument.
func (a *aggOp) spillOIDs() []plan.OID {
	oids := append([]plan.OID(nil), a.keyOIDs()...)
	for _, f := range a.aggs {
		t := f.argT
		if f.arg == nil || f.grouping != nil {
			t = plan.Bool // nothing is written there
		}
		oids = append(oids, plan.Bool, t)
	}
	return oids
}

// startSpill opens the partition files, charging their buffers.
func (a *aggOp) startSpill(mem *memAcct) (*partFiles, error) {
	if err := mem.growReserve(aggSpillOp); err != nil {
		return nil, err
	}
	return a.e.newPartFiles(aggSpillOp, a.spillOIDs(), partFanout)
}

// partOf is the partition of a key's hash at a level of partitioning
// (each level reads other bits).
func partOf(hv uint64, depth int) int {
	return int(hv >> (60 - 4*depth) & (partFanout - 1))
}

// spillRows writes rows out (their key hashes hv) of b in set.
func (a *aggOp) spillRows(parts *partFiles, b *Batch, out []int, hv []uint64, set int, mask []bool, off int, rowsOf [][]int, valsOf [][]types.Value) error {
	// which rows each aggregate with a FILTER takes
	in := make([][]bool, len(a.aggs))
	for k, f := range a.aggs {
		if f.filter != nil {
			in[k] = make([]bool, b.N)
			for _, i := range rowsOf[k] {
				in[k][i] = true
			}
		}
	}
	nk := off + len(a.group)
	row := make([]types.Value, nk+2*len(a.aggs))
	for x, i := range out {
		copy(row, a.key(b, i, set, mask, off))
		for k, f := range a.aggs {
			row[nk+2*k], row[nk+2*k+1] = false, nil
			if f.grouping != nil || in[k] != nil && !in[k][i] {
				continue
			}
			row[nk+2*k] = true
			if valsOf[k] != nil {
				row[nk+2*k+1] = valsOf[k][i]
			}
		}
		if err := parts.add(partOf(hv[x], 0), row); err != nil {
			return err
		}
	}
	return nil
}

// drain aggregates each partition of parts (written at level depth).
func (a *aggOp) drain(parts *partFiles, depth int, h *rowHasher, sets [][]bool, off int, emit func(*Batch) error) error {
	for i := range parts.rows {
		if err := a.replay(parts, i, depth, h, sets, off, emit); err != nil {
			return err
		}
	}
	return nil
}

// replay aggregates partition i of parts, spilling again to the next
// level what does not fit.
func (a *aggOp) replay(parts *partFiles, i, depth int, h *rowHasher, sets [][]bool, off int, emit func(*Batch) error) error {
	e := a.e
	mem := &memAcct{e: e}
	defer mem.done()
	groups := &rowMap{h: h}
	var states [][]aggState
	ds := a.newDistinctSpill() // DISTINCT aggregates' files (distinctspill.go)
	defer ds.remove()
	var sub *partFiles
	defer func() {
		if sub != nil {
			sub.remove()
		}
	}()
	nk := off + len(a.group)
	ig := a.intGroupsOf() // aggintkey.go (nil: a key of another form)
	err := parts.each(i, func(row []types.Value) error {
		key := row[:nk]
		g, hv := -1, uint64(0)
		indexed := false
		if ig != nil {
			g, indexed = ig.find(key[0])
		}
		if !indexed {
			hv = h.hash(key)
			for p := groups.tab.probe(hv); ; {
				x := p.next()
				if x < 0 {
					break
				}
				if h.equal(groups.rows[x], key) {
					g = x
					break
				}
			}
		} else if g < 0 {
			hv = h.hash(key)
		}
		if g < 0 {
			n := rowBytes(key) + int64(64*len(a.aggs))
			if sub == nil && mem.tryGrowKeeping(n, ds.groupKeep()) {
				set := 0
				if off > 0 {
					set = int(key[0].(int64))
				}
				g = groups.addHashed(hv, append([]types.Value(nil), key...))
				if ig != nil {
					ig.add(key[0], g)
				}
				states = append(states, a.newStates(set, sets, mem, ds))
			} else {
				if sub == nil {
					if depth+1 >= maxSpillDepth {
						return e.spillRefusal(aggSpillOp)
					}
					var err error
					if sub, err = a.startSpill(mem); err != nil {
						return err
					}
				}
				return sub.add(partOf(hv, depth+1), row)
			}
		}
		for k, f := range a.aggs {
			if f.grouping != nil || row[nk+2*k] != true {
				continue
			}
			var v types.Value = true // count(*)
			if f.arg != nil {
				if v = row[nk+2*k+1]; v == nil {
					continue
				}
			}
			if err := states[g][k].add(v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := a.emitGroups(groups, states, off, emit); err != nil {
		return err
	}
	if sub == nil {
		return nil
	}
	groups, states = nil, nil
	mem.done()
	if err := sub.finish(); err != nil {
		return err
	}
	return a.drain(sub, depth+1, h, sets, off, emit)
}

// spillErr is the aggregation's spillErr.
func (a *aggOp) spillErr(err error) error { return spillErr(a.e, aggSpillOp, err) }

// spillErr turns a value the files cannot carry into operator op's
// working-memory refusal (53200).
func spillErr(e *env, op string, err error) error {
	if errors.Is(err, errNoSpill) {
		return e.spillRefusal(op)
	}
	return err
}
