package builtin

import (
	"math"

	"github.com/sidecar-dev/sidecar/types"
)

// The functions whose answers differ among PostgreSQL 14–18, as the
// differential tests against each major found:
//   - quote_ident: the keywords it quotes (16 added json_array,
//     json_arrayagg, json_object, json_objectagg and system_user; 17 json,
//     json_exists, json_query, json_scalar, json_serialize, json_table,
//     json_value and merge_action);
//   - date_trunc of ±infinity: before 18 any unit answers the infinity,
//     from 18 the unit is checked first (22023/0A000 as for a finite
//     value);
//   - chr of a negative number: 14 reads it as a huge unsigned number
//     (54000 "requested character too large"), 15 on say 22023;
//   - regexp_like exists from 15;
//   - extract/date_part(quarter) of an interval with negative months:
//     from 18 -((-months)/3 + 1), before months/3 + 1.
//
// A registry built for a known major (NewFor) answers as that major; one
// built by New (major unknown) refuses with 0A000 exactly the inputs on
// which the majors differ.

// unknownMajor is the version of a registry built without a dialect.
const unknownMajor = -1

// NewFor builds the library as the PostgreSQL major d names behaves
// (d.Version 0: the newest).
func NewFor(d types.Dialect) *Registry {
	v := d.Version
	if v == 0 {
		v = math.MaxInt
	}
	return build(v)
}

// Version is the server_version_num the registry follows (-1: unknown;
// math.MaxInt: the newest).
func (r *Registry) Version() int { return r.version }

// atLeast says whether the registry's major is v or newer; known=false
// when the major is not known.
func (r *Registry) atLeast(v int) (yes, known bool) {
	if r.version == unknownMajor {
		return false, false
	}
	return r.version >= v, true
}

// keywordsSince are the keywords (of a category other than unreserved,
// which quote_ident quotes) added after PostgreSQL 15, by the
// server_version_num that added them.
var keywordsSince = map[string]int{
	"json_array": 160000, "json_arrayagg": 160000, "json_object": 160000, "json_objectagg": 160000, "system_user": 160000,
	"json": 170000, "json_exists": 170000, "json_query": 170000, "json_scalar": 170000, "json_serialize": 170000,
	"json_table": 170000, "json_value": 170000, "merge_action": 170000,
}

// quoteIdentFor is quote_ident in the registry's major.
func (r *Registry) quoteIdentFor(s string) (types.Value, error) {
	if since, ok := keywordsSince[s]; ok {
		yes, known := r.atLeast(since)
		if !known {
			return nil, unsupported("quote_ident(%q) when the server's major is not known (a keyword of some majors only)", s)
		}
		if yes {
			return `"` + s + `"`, nil
		}
	}
	return quoteIdent(s), nil
}

// dateTruncFor is date_trunc in the registry's major.
func (r *Registry) dateTruncFor(low string, t types.TimestampVal, typ OID) (types.Value, error) {
	if !isInfTs(t) {
		return dateTrunc(low, t, typ)
	}
	if _, err := dateTrunc(low, 0, typ); err != nil {
		yes, known := r.atLeast(180000)
		switch {
		case !known:
			return nil, unsupported("date_trunc(%q) of an infinite timestamp when the server's major is not known", low)
		case yes:
			return nil, err
		}
	}
	return t, nil
}

// chrNegative is chr's error for a negative argument in the registry's
// major.
func (r *Registry) chrNegative(n int64) error {
	yes, known := r.atLeast(150000)
	switch {
	case !known:
		return unsupported("chr of a negative number when the server's major is not known")
	case yes:
		return errorf(CodeInvalidParameter, "character number must be positive")
	}
	return errorf(CodeProgramLimit, "requested character too large for encoding: %d", n)
}

// intervalPartFor is extract/date_part of an interval in the registry's
// major.
func (r *Registry) intervalPartFor(low string, v types.IntervalVal) (part, error) {
	p, err := intervalPart(low, v)
	mon := int64(v.Months) % 12
	if err != nil || mon >= 0 || deltaUnits[tok10(low)] != uQuarter {
		return p, err
	}
	yes, known := r.atLeast(180000)
	switch {
	case !known:
		return part{}, unsupported("the quarter of an interval with negative months when the server's major is not known")
	case yes:
		return intPart(-((-mon)/3 + 1)), nil
	}
	return p, nil
}

// sinceOf is the server_version_num that added overload f, for the
// functions the library has that are newer than PostgreSQL 14 (0:
// every major has it): regexp_count, regexp_instr, regexp_substr,
// regexp_like and regexp_replace's start/N forms are 15's.
func sinceOf(f *Func) int {
	switch f.Name {
	case "regexp_count", "regexp_instr", "regexp_substr", "regexp_like":
		return 150000
	case "regexp_replace":
		if len(f.Args) >= 4 && f.Args[3] == types.Int4 {
			return 150000
		}
	}
	return 0
}

// gateBySince drops the overloads the registry's major does not have
// (a call is then 42883, as there). For an unknown major it drops them
// too but makes a call a refusal (0A000) when resolved, so a planner
// with the major known plans it instead: answering would be a wrong
// answer on 14.
func (r *Registry) gateBySince() {
	for name, fs := range r.funcs {
		kept := fs[:0]
		dropped := false
		for _, f := range fs {
			if since := sinceOf(f); since != 0 {
				if yes, _ := r.atLeast(since); !yes {
					dropped = true
					continue
				}
			}
			kept = append(kept, f)
		}
		if !dropped || r.version != unknownMajor {
			if len(kept) == 0 {
				delete(r.funcs, name)
			} else {
				r.funcs[name] = kept
			}
			continue
		}
		if len(kept) == 0 {
			delete(r.funcs, name)
			r.missing[name] = true // 0A000 on resolution
		} else {
			r.funcs[name] = kept
			r.partialFuncs[name] = true // no overload matching: 0A000
		}
	}
}
