package sqlfront

import (
	"context"
	"maps"
	"strings"

	"github.com/sidecar-dev/sidecar/internal/pgparams"
)

// PostgreSQL's run-time parameters on the SQL port: SET, RESET, SET
// LOCAL and set_config check and print a value as PostgreSQL does
// (internal/pgparams: the table of each major's parameters, generated
// from pg_settings, and parse_int/parse_real/parse_bool/enum rules), and
// SHOW, current_setting, SHOW ALL and pg_settings print a parameter
// never SET in the session at the followed server's value
// (SessionDefaults.Settings, read by the daemon with the session
// defaults). Before, SET accepted any name and any value and SHOW printed
// the text as given (SET work_mem = 65536 showed 65536, PostgreSQL 64MB),
// and SHOW of a parameter sidecar did not keep answered 42704.
//
// The settings sidecar interprets itself (selfSettings, session.set's
// cases) keep their own handling; names with a dot are custom
// placeholders, accepted as PostgreSQL does. A parameter whose value the
// daemon has not read (no server reached yet) is refused (0A000), never
// answered 42704. sidecar's sessions are not superuser sessions
// (is_superuser off): superuser parameters are refused 42501 as
// PostgreSQL refuses a plain role.

// selfSettings are the settings reaching session.set's default branch
// that sidecar interprets or keeps itself (planSettings, money_locale.go).
var selfSettings = map[string]bool{"extra_float_digits": true, "bytea_output": true, "search_path": true, "application_name": true,
	"lc_monetary": true, "datestyle": true, "intervalstyle": true}

// hiddenParams are parameters PostgreSQL's SHOW knows but pg_settings
// does not list (GUC_NO_SHOW_ALL), with the value a session that never
// set them shows; SET of them keeps sidecar's earlier handling.
var hiddenParams = map[string]string{"role": "none", "seed": "unavailable", "transaction_deferrable": "off"}

// paramMajor is the followed server's major for the parameter table (0:
// not known, the newest).
func (s *session) paramMajor() int { return s.followedVersionNum() / 10000 }

// setParam is SET (val nil: RESET) of name in session.set's default
// branch: handled false leaves it to the branch (sidecar's own and
// custom settings).
func (s *session) setParam(name string, val *string) (handled bool, err error) {
	if selfSettings[name] || strings.Contains(name, ".") {
		return false, nil
	}
	if _, ok := hiddenParams[name]; ok {
		return false, nil
	}
	if name == "is_superuser" { // internal, hidden from pg_settings
		return true, errf(pgparams.CodeCantChange, -1, "parameter \"%s\" cannot be changed", name)
	}
	p, ok := pgparams.Lookup(name, s.paramMajor())
	if !ok {
		return true, errf(codeUndefinedObject, -1, "unrecognized configuration parameter \"%s\"", name)
	}
	if e := p.CheckSet(name, s.initial == nil); e != nil {
		return true, paramError(e)
	}
	if val == nil {
		delete(s.settings, name) // SHOW: the server's value again
		return true, nil
	}
	cur, _, _ := s.showSetting(name)
	v, e := p.Normalize(s.paramMajor(), name, *val, cur)
	if e != nil {
		return true, paramError(e)
	}
	s.settings[name] = v.Show
	return true, nil
}

// paramError is a pgparams error as the front end's.
func paramError(e *pgparams.Error) *Error {
	if e.Code == pgparams.CodeNotSupported {
		return &Error{Code: codeUnsupported, Pos: -1, Msg: e.Message, Hint: e.Hint}
	}
	return &Error{Code: e.Code, Pos: -1, Msg: e.Message, Hint: e.Hint}
}

// serverSetting is SHOW's value of a parameter the session does not
// keep: the followed server's, as a plain connection sees it; ok false
// when PostgreSQL has no such parameter.
func (s *session) serverSetting(name string) (string, bool, error) {
	if strings.Contains(name, ".") {
		return "", false, nil
	}
	switch name {
	case "session_authorization":
		return s.user, true, nil
	}
	if v, ok := hiddenParams[name]; ok {
		return v, true, nil
	}
	p, ok := pgparams.Lookup(name, s.paramMajor())
	if !ok {
		return "", false, nil
	}
	if v, ok := s.serverSettings()[strings.ToLower(p.Name)]; ok {
		return v, true, nil
	}
	return "", false, unsupported(-1, "SHOW of parameter \""+name+"\" before sidecar has read the followed server's settings").
		hint("the daemon reads them when it reaches the server; SET the parameter, or retry later")
}

// serverSettings are the followed server's parameter values (lower-case
// name → SHOW's text), nil when not read.
func (s *session) serverSettings() map[string]string {
	if s.srv.opts.SessionDefaults == nil {
		return nil
	}
	return s.srv.opts.SessionDefaults().Settings
}

// allSettings are the session's settings and, under them, the followed
// server's values of every parameter of its major the session does not
// keep: SHOW ALL's and pg_settings' rows.
func (s *session) allSettings() map[string]string {
	server := s.serverSettings()
	if len(server) == 0 {
		return s.settings
	}
	out := maps.Clone(s.settings)
	for _, p := range pgparams.All(s.paramMajor()) {
		k := strings.ToLower(p.Name)
		if _, ok := out[k]; ok {
			continue
		}
		if v, ok := server[k]; ok {
			out[k] = v
		}
	}
	return out
}

// setConfig is set_config(name, value, is_local): SET or SET LOCAL from
// an expression, returning the value SHOW then prints. is_local outside
// a transaction block lasts for the statement only: checked, then undone
// (PostgreSQL's lasts to the end of the statement's transaction).
func (s *session) setConfig(ctx context.Context, name, val string, local bool) (string, error) {
	p := &plan{setName: strings.ToLower(name), setVal: &val, setLocal: local}
	if local && !s.inTxBlock() {
		st := s.saveSettings()
		if err := s.set(ctx, p.setName, &val); err != nil {
			return "", err
		}
		v, _, err := s.showSetting(p.setName)
		s.restoreSetting(st, p.setName)
		return v, err
	}
	if err := s.runSet(ctx, p); err != nil { // txsettings.go: SET LOCAL's bookkeeping
		return "", err
	}
	v, _, err := s.showSetting(p.setName)
	return v, err
}

// pgArrayText is the text of a text[] of vals as PostgreSQL prints it.
func pgArrayText(vals []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(',')
		}
		if v == "" || strings.EqualFold(v, "null") || strings.ContainsAny(v, " ,{}\"\\\t\n") {
			b.WriteString(`"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`)
			continue
		}
		b.WriteString(v)
	}
	b.WriteByte('}')
	return b.String()
}

// paramDisplay is SHOW ALL's name and description of setting k: the
// parameter table's for PostgreSQL's, sidecar's own else.
func (s *session) paramDisplay(k string) (string, string) {
	if p, ok := pgparams.Lookup(k, s.paramMajor()); ok {
		return p.Name, p.ShortDesc
	}
	name := k
	if c, ok := settingNames[k]; ok {
		name = c
	}
	return name, settingDescriptions[k]
}

// paramRow is pg_settings' row of parameter p whose SHOW text is show:
// setting in the base unit, and the table's unit, category, short_desc,
// context, vartype, bounds and enumvals; the columns the table does not
// hold (extra_desc, source, boot_val, reset_val, sourcefile, sourceline,
// pending_restart) unknown.
func paramRow(p *pgparams.Param, show string) []*string {
	u := pgUnknown
	opt := func(v string) *string {
		if v == "" {
			return nil
		}
		return sv(v)
	}
	var enumvals *string
	if p.VarType == "enum" {
		enumvals = sv(pgArrayText(p.EnumVals))
	}
	return []*string{sv(p.Name), sv(p.Setting(show)), opt(p.Unit), sv(p.Category), sv(p.ShortDesc), u, sv(p.Context), sv(p.VarType), u,
		opt(p.Min), opt(p.Max), enumvals, u, u, u, u, u}
}
