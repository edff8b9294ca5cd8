package sqlfront

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sidecar-dev/sidecar/internal/pgparams"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// pg_settings: the session's settings sidecar keeps (SHOW ALL's), plus
// max_index_keys (pgjdbc's foreign-key calls read it). PostgreSQL lists
// some 350 settings; a statement reading pg_settings must name the ones
// it reads (WHERE name = '…' or IN (…), pgcatalog_reach.go), else it is
// refused. A setting whose pg_settings.setting is not SHOW's text (one
// with a unit, as statement_timeout: setting counts milliseconds) is not
// listed. Columns sidecar does not track (category, context, source,
// bounds…) are unknown.

// fixedSettings are settings of PostgreSQL's standard builds not kept by
// the session: max_index_keys is INDEX_MAX_KEYS (32 unless PostgreSQL
// was built with another pg_config_manual.h).
var fixedSettings = map[string][2]string{
	"max_index_keys": {"32", "Shows the maximum number of index keys."},
}

// unitSettings are the session's settings with a unit (not listed).
var unitSettings = map[string]bool{"statement_timeout": true}

// settingRows are pg_settings' rows for the session: name, setting and
// short_desc known, unit NULL (no listed setting has one).
//
// lc_collate is the database's datcollate on 14 and 15 (unknown unless
// the copy read a libc default) and not a setting from 16 on.
func settingRows(settings map[string]string, tables []Table) [][]*string {
	type row struct {
		name, setting, desc string
		p                   *pgparams.Param // nil: a setting of sidecar's own
	}
	var rows []row
	version := serverVersion(tables)
	for k, v := range settings {
		if unitSettings[k] || k == "lc_collate" && version >= 160000 {
			continue // statement_timeout: sidecar's own (its server option), not the followed server's
		}
		if p, ok := pgparams.Lookup(k, version/10000); ok {
			rows = append(rows, row{p.Name, v, p.ShortDesc, p}) // settings_params.go: the table's columns
			continue
		}
		name := k
		if n, ok := settingNames[k]; ok {
			name = n
		}
		rows = append(rows, row{name: name, setting: v, desc: settingDescriptions[k]})
	}
	for k, v := range fixedSettings {
		if _, ok := settings[k]; !ok {
			rows = append(rows, row{name: k, setting: v[0], desc: v[1]})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return strings.ToLower(rows[i].name) < strings.ToLower(rows[j].name) })
	var out [][]*string
	u := pgUnknown
	for _, r := range rows {
		desc := u
		if r.desc != "" {
			desc = sv(r.desc)
		}
		setting := sv(r.setting)
		if r.name == "lc_collate" {
			setting = u
			if loc, ok := strings.CutPrefix(databaseLocale(tables), "libc "); ok && version != 0 && loc != "" {
				setting = sv(loc)
			}
		}
		if r.p != nil && r.name != "lc_collate" {
			out = append(out, paramRow(r.p, r.setting))
			continue
		}
		out = append(out, []*string{sv(r.name), setting, nil, u, desc, u, u, u, u, u, u, u, u, u, u, u, u})
	}
	return out
}

var settingsRel = &pgRel{schema: "pg_catalog", name: "pg_settings", cols: pgc("name text, setting text, unit text, category text, short_desc text, " +
	"extra_desc text, context text, vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, reset_val text, " +
	"sourcefile text, sourceline int4, pending_restart bool"),
	rows: func(cx *pgCatCtx) [][]*string { return settingRows(cx.settings, cx.tables) }}

// databaseLocale is the database default collation's provider and
// locale as the copy read it ("libc en_US.UTF-8"; "" not read).
func databaseLocale(tables []Table) string {
	for i := range tables {
		if f := tables[i].Facts; f != nil && f.Default.Locale != "" {
			return f.Default.Locale
		}
	}
	return ""
}

// settingNamed says whether every value of vals is the name of a
// setting pg_settings lists for the session.
func (r *reach) settingNamed(vals []lplan.Scalar) bool {
	for _, v := range vals {
		k, ok := constText([]lplan.Scalar{v})
		if !ok || !r.settings[k] {
			return false
		}
	}
	return len(vals) > 0
}

// showSetting is SHOW's (and current_setting's) value of setting name
// for the session, ok false when the followed server has no such
// setting. lc_collate is the followed server's: not a setting from 16
// on (42704 as PostgreSQL), the database's datcollate on 14 and 15 —
// known when the copy read a libc default; else (an ICU default, whose
// datcollate was not read, or a mirror copied before the server's
// version was read) refused rather than answered "C".
func (s *session) showSetting(name string) (v string, ok bool, err error) {
	if name != "lc_collate" {
		if v, ok = s.settings[name]; !ok {
			return s.serverSetting(name) // settings_params.go
		}
		return v, ok, nil
	}
	tables := s.srv.src.Tables()
	version := serverVersion(tables)
	switch {
	case version >= 160000:
		return "", false, nil
	case version == 0:
		return "", false, unsupported(-1, "lc_collate (the followed server's version was not read: a resync or the next catalog poll reads it)")
	}
	loc, isLibc := strings.CutPrefix(databaseLocale(tables), "libc ")
	if !isLibc || loc == "" {
		return "", false, unsupported(-1, "lc_collate of a database whose default collation is not libc's (its datcollate was not read)")
	}
	return loc, true, nil
}

// unknownServerVersion is advertised when neither the daemon nor the
// followed tables' catalog facts say which server is followed (a front
// end over a mirror whose records predate the facts' version).
const unknownServerVersion = "16.0 (sidecar)"

// advertisedVersion is the server_version a new session reports (the
// startup ParameterStatus, SHOW, current_setting, pg_settings, version()):
// the followed server's. psql chooses its catalog queries by
// server_version_num, pgjdbc and SQLAlchemy by server_version, so
// advertising another major than the one followed makes them send the
// catalog queries of a server sidecar does not describe. Options'
// string (with the server's own suffix, "15.8 (Debian …)") when its
// number is the one the followed tables' facts record; the facts'
// number ("17.2") when they differ (the server was upgraded after the
// daemon started) or the options name none.
func (s *Server) advertisedVersion() string {
	v := s.opts.ServerVersion
	n := serverVersion(s.src.Tables())
	switch {
	case n != 0 && (v == "" || versionNum(v) != strconv.Itoa(n)):
		return fmt.Sprintf("%d.%d", n/10000, n%10000)
	case v == "":
		return unknownServerVersion
	}
	return v
}

// versionNum is server_version_num of a server_version: "16.2 (Debian
// 16.2-1)" → "160002", "18beta1" → "180000" (PostgreSQL 10 and later:
// major × 10000 + minor).
func versionNum(v string) string {
	f := strings.Fields(v)
	if len(f) == 0 {
		return versionNum(unknownServerVersion)
	}
	digits := func(s string) int {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	maj, min, _ := strings.Cut(f[0], ".")
	return strconv.Itoa(digits(maj)*10000 + digits(min))
}

// dialect is the followed server's major for the engine's input
// functions (sql/exec dialect.go): the advertised version's number (the
// daemon's preflight, or the tables' catalog facts); none known, the
// newest.
func (pl *planner) dialect() types.Dialect {
	if pl.sess == nil {
		return types.Dialect{}
	}
	st, _ := types.IntervalStyleOf(pl.sess.settings["intervalstyle"])
	return types.Dialect{Version: pl.sess.followedVersionNum(), IntervalSQLStandard: st == types.IntervalStyleSQLStandard}
}
