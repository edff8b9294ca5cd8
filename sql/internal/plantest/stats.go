package plantest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LoadStats sets the catalog's row estimates from file: one table a
// line, "table rows [column=distinct …]" ('#' starts a comment), what
// the sidecar reads from the in-memory HEAD (live rows; distinct values
// of integer and date columns from their value range).
func (c *Catalog) LoadStats(file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		t := c.Table("", fields[0])
		if t == nil || len(fields) < 2 {
			return fmt.Errorf("%s:%d: want a known table and its rows", file, n)
		}
		if t.Rows, err = strconv.ParseInt(fields[1], 10, 64); err != nil {
			return fmt.Errorf("%s:%d: %w", file, n, err)
		}
	cols:
		for _, f := range fields[2:] {
			name, d, _ := strings.Cut(f, "=")
			v, err := strconv.ParseInt(d, 10, 64)
			if err != nil {
				return fmt.Errorf("%s:%d: %s: %w", file, n, f, err)
			}
			for i := range t.Columns {
				if t.Columns[i].Name == name {
					t.Columns[i].Distinct = v
					continue cols
				}
			}
			return fmt.Errorf("%s:%d: no column %s in %s", file, n, name, t.Name)
		}
	}
	return sc.Err()
}
