package heap

import (
	"bytes"
	"fmt"
	"math/big"
	"math/bits"
)

// checkInvariants verifies the structure of one version: bitmaps agree
// with the counters, varlen accounting adds up, every page's summary
// equals one recomputed from its live values, and the table's summary is
// the merge of the pages'.
func checkInvariants(s *Snapshot) error {
	h := s.h
	var rows int64
	table := make([]ColStats, len(h.schema.Columns))
	for i := range s.v.pages.len() {
		p := s.v.pages.at(i)
		if p.isCold() {
			q, err := h.thawStats(p, 0, nil)
			if err != nil {
				return err
			}
			if q.id != p.id || q.n != p.n || q.nlive != p.nlive || q.ndead != p.ndead || q.varUsed != p.varUsed || p.garbage != 0 {
				return fmt.Errorf("cold page %d: header %d/%d/%d/%d/%d, decoded %d/%d/%d/%d/%d", i, p.id, p.n, p.nlive, p.ndead, p.varUsed, q.id, q.n, q.nlive, q.ndead, q.varUsed)
			}
			for c, col := range h.schema.Columns {
				if err := sameStats(col.Kind, &p.stats[c], &q.stats[c]); err != nil {
					return fmt.Errorf("cold page %d column %d: %w", i, c, err)
				}
			}
			p = q
		}
		if p.id != uint32(i) {
			return fmt.Errorf("page %d has id %d", i, p.id)
		}
		nl, nd := 0, 0
		for w := range p.live {
			if p.live[w]&p.dead[w] != 0 {
				return fmt.Errorf("page %d: slot both live and dead", i)
			}
			nl += bits.OnesCount64(p.live[w])
			nd += bits.OnesCount64(p.dead[w])
		}
		if nl != p.nlive || nd != p.ndead {
			return fmt.Errorf("page %d: %d live %d dead in bitmaps, counters %d %d", i, nl, nd, p.nlive, p.ndead)
		}
		for slot := p.n; slot < h.cfg.PageRows; slot++ {
			if bit(p.live, slot) || bit(p.dead, slot) {
				return fmt.Errorf("page %d: slot %d past n=%d in use", i, slot, p.n)
			}
		}
		used, liveBytes := 0, 0
		for c, col := range h.schema.Columns {
			used += len(p.cols[c].data)
			for slot := 0; slot < p.n; slot++ {
				if bit(p.live, slot) {
					liveBytes += p.varBytes(col.Kind, c, slot)
				}
			}
		}
		if used != p.varUsed || used-liveBytes != p.garbage {
			return fmt.Errorf("page %d: varlen %d (live %d), accounted %d garbage %d", i, used, liveBytes, p.varUsed, p.garbage)
		}
		q := p.clone(0)
		q.recomputeStats(&h.schema)
		for c, col := range h.schema.Columns {
			if err := sameStats(col.Kind, &p.stats[c], &q.stats[c]); err != nil {
				return fmt.Errorf("page %d column %d (%s): %w", i, c, col.Name, err)
			}
			table[c].merge(col.Kind, &p.stats[c])
		}
		rows += int64(p.nlive)
	}
	if rows != s.v.rows {
		return fmt.Errorf("%d live rows in pages, version says %d", rows, s.v.rows)
	}
	for c, col := range h.schema.Columns {
		if err := sameStats(col.Kind, &s.v.stats[c], &table[c]); err != nil {
			return fmt.Errorf("table column %d (%s): %w", c, col.Name, err)
		}
	}
	return nil
}

func sameStats(k Kind, a, b *ColStats) error {
	if a.stale {
		return fmt.Errorf("published stale min/max")
	}
	if a.Count != b.Count || a.Nulls != b.Nulls {
		return fmt.Errorf("count/nulls %d/%d, recomputed %d/%d", a.Count, a.Nulls, b.Count, b.Nulls)
	}
	if a.Sum != b.Sum {
		return fmt.Errorf("sum %v, recomputed %v", a.Sum, b.Sum)
	}
	if a.HasMinMax(k) && (a.nMin != b.nMin || a.nMax != b.nMax) {
		return fmt.Errorf("min/max counts %d/%d, recomputed %d/%d", a.nMin, a.nMax, b.nMin, b.nMax)
	}
	if a.HasMinMax(k) && k == KindText && (!bytes.Equal(a.MinB, b.MinB) || !bytes.Equal(a.MaxB, b.MaxB)) {
		return fmt.Errorf("text min/max %q/%q, recomputed %q/%q", a.MinB, a.MaxB, b.MinB, b.MaxB)
	}
	if a.HasMinMax(k) && k == KindNumeric && (CompareNumeric(&a.MinN, &b.MinN) != 0 || CompareNumeric(&a.MaxN, &b.MaxN) != 0) {
		return fmt.Errorf("numeric min/max %v/%v, recomputed %v/%v", a.MinN, a.MaxN, b.MinN, b.MaxN)
	}
	if a.HasMinMax(k) && (k.IsFloat() || (k.IsInt() && k != KindNumeric)) {
		if k.IsFloat() {
			// -0 and 0 are equal (either may stand for both).
			if !floatEq(a.MinF, b.MinF) || !floatEq(a.MaxF, b.MaxF) {
				return fmt.Errorf("min/max %v/%v, recomputed %v/%v", a.MinF, a.MaxF, b.MinF, b.MaxF)
			}
		} else if a.MinI != b.MinI || a.MaxI != b.MaxI {
			return fmt.Errorf("min/max %v/%v, recomputed %v/%v", a.MinI, a.MaxI, b.MinI, b.MaxI)
		}
	}
	if decRat(a.NumSum).Cmp(decRat(b.NumSum)) != 0 || a.NumNaN != b.NumNaN || a.NumPosInf != b.NumPosInf || a.NumNegInf != b.NumNegInf {
		return fmt.Errorf("numeric sum %v, recomputed %v", decRat(a.NumSum), decRat(b.NumSum))
	}
	return nil
}

func decRat(d *Decimal) *big.Rat {
	if d == nil {
		return new(big.Rat)
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil)
	return new(big.Rat).SetFrac(&d.Unscaled, den)
}
