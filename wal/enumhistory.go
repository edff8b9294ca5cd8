package wal

import "slices"

// Enum label history. PostgreSQL stores an enum value as its label's
// OID; pgoutput sends the label's text and the mirror keeps that text.
// ALTER TYPE … RENAME VALUE changes no row, so a row written before a
// rename holds the label's former text — and once that text is given to
// another label (RENAME VALUE 'sad' TO 'blue', then ADD VALUE 'sad'), a
// stored 'sad' may be either label. UserTypeFacts.Retired records each
// label's former texts as the catalog polls saw them change; the facts
// of each later version carry them on (WithHistory), so a reader can
// tell the texts that became ambiguous (AmbiguousLabels) and refuse
// them rather than print the wrong label.

// RetiredLabel is a text label OID had before a RENAME VALUE.
type RetiredLabel struct {
	OID, TypeOID uint32
	Label        string
}

// WithHistory returns u carrying prev's label history: prev's retired
// labels, and the former text of every label of prev that u names
// otherwise (renamed between the two reads). u is not modified; it is
// returned itself when it already carries all of that. nil u or prev
// (not read) carries nothing.
func (u *UserTypeFacts) WithHistory(prev *UserTypeFacts) *UserTypeFacts {
	if u == nil || prev == nil {
		return u
	}
	cur := make(map[uint32]string, len(u.Labels))
	for _, l := range u.Labels {
		cur[l.OID] = l.Label
	}
	retired := slices.Clone(u.Retired)
	have := make(map[RetiredLabel]bool, len(retired)+len(prev.Retired))
	for _, r := range retired {
		have[r] = true
	}
	add := func(r RetiredLabel) {
		if !have[r] {
			have[r] = true
			retired = append(retired, r)
		}
	}
	for _, r := range prev.Retired {
		add(r)
	}
	for _, l := range prev.Labels {
		if now, ok := cur[l.OID]; ok && now != l.Label {
			add(RetiredLabel{OID: l.OID, TypeOID: l.TypeOID, Label: l.Label})
		}
	}
	lost := u.RetiredLost || prev.RetiredLost
	if len(retired) > MaxUserTypes {
		// Bounded: past it the history is dropped and every label of
		// every enum counts as ambiguous from then on.
		retired, lost = nil, true
	}
	if lost == u.RetiredLost && len(retired) == len(u.Retired) {
		return u
	}
	slices.SortFunc(retired, func(a, b RetiredLabel) int {
		if a.OID != b.OID {
			return int(int64(a.OID) - int64(b.OID))
		}
		if a.Label < b.Label {
			return -1
		}
		if a.Label > b.Label {
			return 1
		}
		return 0
	})
	out := *u
	out.Retired, out.RetiredLost = retired, lost
	return &out
}

// AmbiguousLabels are the labels of enum type typ whose text another
// label of the type had before a rename: a stored value of that text
// may mean either label (nil: none). With the history lost, every label
// of the type.
func (u *UserTypeFacts) AmbiguousLabels(typ uint32) map[string]struct{} {
	if u == nil {
		return nil
	}
	owner := map[string]uint32{}
	for _, l := range u.Labels {
		if l.TypeOID == typ {
			owner[l.Label] = l.OID
		}
	}
	var out map[string]struct{}
	for _, r := range u.Retired {
		if oid, ok := owner[r.Label]; ok && r.TypeOID == typ && oid != r.OID {
			if out == nil {
				out = map[string]struct{}{}
			}
			out[r.Label] = struct{}{}
		}
	}
	if u.RetiredLost {
		out = make(map[string]struct{}, len(owner))
		for l := range owner {
			out[l] = struct{}{}
		}
	}
	return out
}
