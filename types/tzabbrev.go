package types

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ZoneAbbrev is one abbreviation a zone's data uses, with its meaning as
// PostgreSQL's pg_timezone_abbrev_is_known reads it: the offset (seconds
// east) of its first use, and whether every use has that offset and
// daylight flag (Fixed; else its offset follows the zone's history).
type ZoneAbbrev struct {
	Name  string // as in the zone's data ("CET", "UTC", "+05")
	East  int64
	Fixed bool
}

// Abbrevs is the abbreviations the zone's data holds, in the order of
// their first use. From PostgreSQL 18 a zone name that is one of the
// session zone's abbreviations means it (DecodeTimezoneAbbrev looks in
// session_timezone before timezone_abbreviations). A zone of the tz
// database reads its TZif file's types (not the footer's rule, whose
// abbreviations are the last types'); a POSIX zone string ("UTC+3",
// "<+05>-05", the zone of SET TIME ZONE 5) has its std name, upper case
// as pg_tzset parses it; UTC is "UTC".
func (z *Zone) Abbrevs() ([]ZoneAbbrev, error) {
	if z == nil || z.loc == nil {
		if z == nil || z.Name == "UTC" || z.Name == "Etc/UTC" {
			return []ZoneAbbrev{{Name: "UTC", Fixed: true}}, nil
		}
		name := z.Name
		if strings.HasPrefix(name, "<") {
			name = name[1:strings.IndexByte(name, '>')]
		} else {
			i := 0
			for i < len(name) && isAlpha(name[i]) {
				i++
			}
			name = strings.ToUpper(name[:i])
		}
		return []ZoneAbbrev{{Name: name, East: z.east, Fixed: true}}, nil
	}
	file, ok := zoneFileName(z.Name)
	if !ok {
		return nil, fmt.Errorf("time zone %q: no tz database file", z.Name)
	}
	b, err := os.ReadFile(filepath.Join(zoneDir(), file))
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", z.Name, err)
	}
	out, err := tzifAbbrevs(b)
	if err != nil {
		return nil, fmt.Errorf("time zone %q (%s): %w", z.Name, file, err)
	}
	return out, nil
}

// tzifAbbrevs reads the local time types of a TZif file (RFC 8536): the
// version 2+ data block when there is one, else version 1's.
func tzifAbbrevs(b []byte) ([]ZoneAbbrev, error) {
	const hdr = 44
	counts := func(b []byte) (isut, isstd, leap, times, typs, chars int, ok bool) {
		if len(b) < hdr || string(b[:4]) != "TZif" {
			return 0, 0, 0, 0, 0, 0, false
		}
		c := func(i int) int { return int(binary.BigEndian.Uint32(b[20+4*i:])) }
		return c(0), c(1), c(2), c(3), c(4), c(5), true
	}
	isut, isstd, leap, times, typs, chars, ok := counts(b)
	if !ok {
		return nil, fmt.Errorf("not a TZif file")
	}
	timeSize := 4
	if b[4] >= '2' {
		// Skip version 1's block: the second header follows it.
		skip := hdr + times*5 + typs*6 + chars + leap*8 + isstd + isut
		if len(b) < skip {
			return nil, fmt.Errorf("truncated TZif file")
		}
		b = b[skip:]
		if isut, isstd, leap, times, typs, chars, ok = counts(b); !ok {
			return nil, fmt.Errorf("bad TZif version 2 header")
		}
		timeSize = 8
	}
	_, _, _ = isut, isstd, leap
	p := hdr + times*timeSize + times
	if len(b) < p+typs*6+chars {
		return nil, fmt.Errorf("truncated TZif file")
	}
	desig := b[p+typs*6 : p+typs*6+chars]
	var out []ZoneAbbrev
	isdst := map[string]byte{}
	for i := range typs {
		t := b[p+6*i : p+6*i+6]
		east := int64(int32(binary.BigEndian.Uint32(t)))
		idx := int(t[5])
		if idx >= len(desig) {
			return nil, fmt.Errorf("bad abbreviation index %d", idx)
		}
		name := string(desig[idx:])
		if j := strings.IndexByte(name, 0); j >= 0 {
			name = name[:j]
		}
		k := -1
		for j := range out {
			if out[j].Name == name {
				k = j
			}
		}
		if k < 0 {
			out = append(out, ZoneAbbrev{Name: name, East: east, Fixed: true})
			isdst[name] = t[4]
			continue
		}
		if out[k].East != east || isdst[name] != t[4] {
			out[k].Fixed = false
		}
	}
	return out, nil
}
