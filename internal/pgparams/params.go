// Package pgparams is PostgreSQL's table of run-time parameters (GUCs)
// per major, 14 to 18, as each major's pg_settings describes them
// (params_gen.go, generated from real servers by `go test
// ./internal/pgparams -run TestGenerated -update`), and the rules by
// which PostgreSQL reads and prints their values (value.go): parse_int
// with units, parse_real, parse_bool, enum lookup, the contexts in
// which a SET is allowed. The SQL front end uses it to answer SET, SHOW,
// current_setting and pg_settings as PostgreSQL does.
package pgparams

import (
	"sort"
	"strings"
)

// FirstMajor is the oldest major the table describes; bit i of
// Param.Majors is major FirstMajor+i.
const FirstMajor = 14

// LastMajor is the newest major the table describes.
const LastMajor = 18

// Param is one parameter as pg_settings describes it on the majors of
// Majors (a parameter whose description changed between majors has one
// Param per description).
type Param struct {
	Name      string   // as pg_settings spells it ("DateStyle")
	VarType   string   // bool, integer, real, string, enum
	Unit      string   // pg_settings.unit: "", "B", "kB", "MB", "8kB", "ms", "s", "min"
	Min, Max  string   // pg_settings.min_val, max_val ("" for none)
	EnumVals  []string // pg_settings.enumvals, canonical spellings
	Context   string   // internal, postmaster, sighup, superuser-backend, backend, superuser, user
	Category  string   // pg_settings.category
	ShortDesc string   // pg_settings.short_desc
	// Aliases are the enum's hidden spellings (not in enumvals, accepted
	// by SET: "true" for synchronous_commit) and the canonical value
	// SHOW then prints, as "true=on".
	Aliases []string
	Majors  uint8
}

// HasMajor says whether the parameter is described so on major.
func (p *Param) HasMajor(major int) bool {
	i := major - FirstMajor
	return i >= 0 && i < 8 && p.Majors&(1<<i) != 0
}

// Lookup is the parameter name (any case) of major: major 0 or one the
// table does not describe (a newer server) is looked up on LastMajor.
func Lookup(name string, major int) (*Param, bool) {
	if major < FirstMajor || major > LastMajor {
		major = LastMajor
	}
	low := strings.ToLower(name)
	i := sort.Search(len(params), func(i int) bool { return strings.ToLower(params[i].Name) >= low })
	for ; i < len(params) && strings.ToLower(params[i].Name) == low; i++ {
		if params[i].HasMajor(major) {
			return &params[i], true
		}
	}
	return nil, false
}

// All are major's parameters in pg_settings' order (by name).
func All(major int) []*Param {
	if major < FirstMajor || major > LastMajor {
		major = LastMajor
	}
	var out []*Param
	for i := range params {
		if params[i].HasMajor(major) {
			out = append(out, &params[i])
		}
	}
	return out
}
