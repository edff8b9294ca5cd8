package sqlfront

// Functional dependency on a grouped primary key. PostgreSQL lets a
// grouped query read any column of a table whose PRIMARY KEY columns
// are all grouped on (check_functional_grouping); only the constraint
// counts, not another unique index (the replica identity's may be one).
// sql/plan applies the rule (lplan.TableDef.PrimaryKey); the flat
// planner does not, so a column it would call ungrouped while the rule
// may allow it is refused there and planned on sql/exec.

// primaryKeyCols are the indexes into t.Columns of t's PRIMARY KEY
// constraint (nil: none, or its facts were not read).
func primaryKeyCols(t *Table) []int {
	if t.Facts == nil || t.Facts.PrimaryKey == nil {
		return nil
	}
	var out []int
	for _, name := range t.Facts.PrimaryKey.Columns {
		i := -1
		for j, c := range t.Columns {
			if c.Name == name {
				i = j
			}
		}
		if i < 0 {
			return nil
		}
		out = append(out, i)
	}
	return out
}

// keyGrouped says whether the FROM item of scope column idx is a
// followed table whose primary key columns are all grouped on (its
// other columns are then functionally dependent on the group).
func (pl *planner) keyGrouped(idx int) bool {
	item := pl.scope[idx].item
	t := pl.p.from[item].table
	if t == nil {
		return false
	}
	pk := primaryKeyCols(t)
	for _, k := range pk {
		grouped := false
		for j, sc := range pl.scope {
			if sc.item == item && int(sc.attnum) == k+1 && pl.inGroup(j) {
				grouped = true
			}
		}
		if !grouped {
			return false
		}
	}
	return len(pk) > 0
}
