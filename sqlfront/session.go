package sqlfront

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/sidecar-dev/sidecar/sql/builtin"
	lplan "github.com/sidecar-dev/sidecar/sql/plan"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sidecar-dev/sidecar/rowenc"
	"github.com/sidecar-dev/sidecar/types"
)

// session is one client connection after startup.
type session struct {
	srv      *Server
	conn     net.Conn
	be       *pgproto3.Backend
	wr       *wireReader
	tm       *pgtype.Map
	user     string
	database string
	startup  map[string]string
	pid      uint32
	secret   uint32

	settings map[string]string // SHOW-able settings
	// defaults are RESET's values where the followed server's differ
	// from sidecar's own (serverdefaults.go).
	defaults map[string]string
	asOf     string // sidecar.as_of ("" = HEAD)
	// zone is TimeZone (nil: UTC), zoneDefault RESET's (timezone.go).
	zone, zoneDefault *types.Zone
	// zoneUnknown is the followed server's default TimeZone when the
	// sidecar cannot use it (no tz data for it, or its offsets differ);
	// zoneDefaultUnknown RESET's (serverdefaults.go).
	zoneUnknown, zoneDefaultUnknown string
	timeout                         *time.Duration // SET statement_timeout (nil: the server's)
	tx                              byte           // 'I', 'T', 'E'
	txSnapshot                      bool           // a statement of the open transaction read (isolation.go)
	txVers                          map[string]Version
	// txMark is the settings at the open transaction's start (nil: none),
	// txLocal SET LOCAL's undo per name, savepoints the SAVEPOINTs, and
	// implicitTx a multi-statement simple query's implicit transaction
	// (txsettings.go).
	txMark     *settingsState
	initial    *settingsState // the settings once the startup packet is applied
	txLocal    map[string]settingsState
	savepoints []savepoint
	implicitTx bool
	stmtVers   map[string]Version
	copyBegun  *copyBegun // a COPY that sent its beginning before a replan (copyout_run.go)

	prepared  map[string]*prepared
	prepBytes int64 // the named ones' estimated size (preparedmem.go)
	portals   map[string]*portal
	cursors   map[string]*cursor // DECLAREd (cursor.go)

	runMu   sync.Mutex
	running context.CancelFunc
	byUser  bool

	// dataRow is reused for every DataRow sent: Send encodes it at once.
	dataRow pgproto3.DataRow

	// stmtStart and txStart are when the running statement and its
	// transaction began (statement_timestamp(), now()).
	stmtStart, txStart time.Time
	// rng is random()'s source (clock.go), made at its first use.
	rng *rand.Rand
	// stmtRegex keeps the running statement's compiled regular
	// expressions (builtin.RegexCache); a new one per statement.
	stmtRegex *builtin.RegexCache
}

// selectTags are the command tags of selects of few rows, made once.
var selectTags = func() [][]byte {
	t := make([][]byte, 64)
	for i := range t {
		t[i] = []byte("SELECT " + strconv.Itoa(i))
	}
	return t
}()

// selectTag is "SELECT n".
func selectTag(n int) []byte {
	if n < len(selectTags) {
		return selectTags[n]
	}
	return []byte("SELECT " + strconv.Itoa(n))
}

// sendRow sends one DataRow.
func (s *session) sendRow(vals [][]byte) {
	s.dataRow.Values = vals
	s.be.Send(&s.dataRow)
	s.dataRow.Values = nil
}

type prepared struct {
	query string
	plan  *plan
	types []uint32
	// asOfParam: the statement has `AS OF $n`; Bind plans it again with
	// the bound refs (the Parse-time plan reads the session's version).
	asOfParam bool
	// settings is planKeyPrefix when plan was made: a prepared statement
	// is planned again at Bind (and Describe) once a setting it depends
	// on changed, as PostgreSQL's plan cache invalidates it (a SET
	// search_path after Parse reads another schema's table).
	settings string
	// fromSQL: made by PREPARE (prepare_sql.go); err, when set, is the
	// error its EXECUTE fails with (a write, prepared as PostgreSQL does).
	fromSQL bool
	err     error
	// charged is its estimated size, counted against the session's
	// share when named (preparedmem.go).
	charged int64
}

type portal struct {
	stmt    *prepared
	plan    *plan
	params  []Value
	formats []int16
	rows    [][]Value // rows not yet sent (after a PortalSuspended)
	mem     *workMem  // rows' memory.query share (portalmem.go)
	started bool
	done    bool
	sent    int
	charged int64 // counted against the session's share (portalbound.go)
}

func newSession(srv *Server, conn net.Conn, be *pgproto3.Backend, wr *wireReader, params map[string]string, isTLS bool) *session {
	s := &session{srv: srv, conn: conn, be: be, wr: wr, tm: pgtype.NewMap(), user: params["user"], database: params["database"], startup: params,
		tx: 'I', prepared: map[string]*prepared{}, portals: map[string]*portal{}}
	if s.database == "" {
		s.database = s.user
	}
	ver := srv.advertisedVersion() // pgcatalog_settings.go
	s.settings = map[string]string{
		"server_version": ver, "server_version_num": versionNum(ver), "server_encoding": "UTF8", "client_encoding": "UTF8",
		"timezone": "UTC", "integer_datetimes": "on",
		"standard_conforming_strings": "on", "default_transaction_read_only": "on", "transaction_read_only": "on",
		"in_hot_standby": "on", "is_superuser": "off", "application_name": params["application_name"],
		"lc_collate": "C", "transaction_isolation": "repeatable read",
		"default_transaction_isolation": "repeatable read", "max_identifier_length": "63",
		"statement_timeout": formatTimeout(srv.opts.StatementTimeout),
	}
	maps.Copy(s.settings, sessionDefaults)
	maps.Copy(s.settings, literalDefaults) // scs.go
	return s
}

// sessionDefaults are a new session's values of the settings plans
// depend on (planSettings, statement.go).
var sessionDefaults = map[string]string{
	"datestyle": "ISO, MDY", "intervalstyle": "postgres", "extra_float_digits": "1", "bytea_output": "hex",
	"search_path": "\"$user\", public", "sidecar.as_of": "",
}

// settingNames are the mixed-case names PostgreSQL's SHOW ALL prints.
var settingNames = map[string]string{"datestyle": "DateStyle", "intervalstyle": "IntervalStyle", "timezone": "TimeZone"}

// settingDescriptions are SHOW ALL's descriptions (PostgreSQL's own
// for its settings).
var settingDescriptions = map[string]string{
	"application_name":              "Sets the application name to be reported in statistics and logs.",
	"backslash_quote":               "Sets whether \"\\'\" is allowed in string literals.",
	"escape_string_warning":         "Warn about backslash escapes in ordinary string literals.",
	"bytea_output":                  "Sets the output format for bytea.",
	"client_encoding":               "Sets the client's character set encoding.",
	"datestyle":                     "Sets the display format for date and time values.",
	"default_transaction_isolation": "Sets the transaction isolation level of each new transaction.",
	"default_transaction_read_only": "Sets the default read-only status of new transactions.",
	"extra_float_digits":            "Sets the number of digits displayed for floating-point values.",
	"in_hot_standby":                "Shows whether hot standby is currently active.",
	"integer_datetimes":             "Shows whether datetimes are integer based.",
	"intervalstyle":                 "Sets the display format for interval values.",
	"is_superuser":                  "Shows whether the current user is a superuser.",
	"lc_collate":                    "Shows the collation order locale.",
	"max_identifier_length":         "Shows the maximum identifier length.",
	"search_path":                   "Sets the schema search order for names that are not schema-qualified.",
	"server_encoding":               "Shows the server (database) character set encoding.",
	"server_version":                "Shows the server version.",
	"server_version_num":            "Shows the server version as an integer.",
	"sidecar.as_of":                 "The version sidecar reads (a ref: HEAD, HEAD~N, an LSN, @time, a tag or a branch); empty is HEAD.",
	"standard_conforming_strings":   "Causes '...' strings to treat backslashes literally.",
	"statement_timeout":             "Sets the maximum allowed duration of any statement.",
	"timezone":                      "Sets the time zone for displaying and interpreting time stamps.",
	"transaction_isolation":         "Sets the current transaction's isolation level.",
	"transaction_read_only":         "Sets the current transaction's read-only status.",
}

// start applies startup options (-c sidecar.as_of=ref) and sends the
// greeting.
func (s *session) start(ctx context.Context) error {
	if err := s.applyServerDefaults(ctx); err != nil { // serverdefaults.go
		return err
	}
	if err := s.startupTimeZone(ctx); err != nil { // timezone.go
		return err
	}
	if opts := s.startup["options"]; opts != "" {
		f := strings.Fields(opts)
		for i := 0; i < len(f); i++ {
			kv := f[i]
			if kv == "-c" && i+1 < len(f) {
				i++
				kv = f[i]
			} else if v, ok := strings.CutPrefix(kv, "--"); ok {
				kv = v
			} else if v, ok := strings.CutPrefix(kv, "-c"); ok {
				kv = v
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			if err := s.set(ctx, strings.ToLower(strings.ReplaceAll(k, "-", "_")), &v); err != nil {
				return err
			}
		}
	}
	// dbname=app@ref: the session reads ref (split at the first @: LSN
	// refs contain /, times contain :).
	if db, ref, ok := strings.Cut(s.database, "@"); ok && ref != "" {
		s.database = db
		if err := s.set(ctx, "sidecar.as_of", &ref); err != nil {
			return err
		}
	}
	if v, ok := s.startup["sidecar.as_of"]; ok {
		if err := s.set(ctx, "sidecar.as_of", &v); err != nil {
			return err
		}
	}
	s.zoneDefault, s.zoneDefaultUnknown = s.zone, s.zoneUnknown // the startup packet's zone is RESET's (timezone.go)
	initial := s.saveSettings()
	s.initial = &initial // RESET ALL's and DISCARD ALL's values (txsettings.go)
	s.be.Send(&pgproto3.AuthenticationOk{})
	for _, k := range []string{"server_version", "server_encoding", "client_encoding", "application_name", "default_transaction_read_only",
		"in_hot_standby", "is_superuser", "session_authorization", "DateStyle", "IntervalStyle", "TimeZone", "integer_datetimes", "standard_conforming_strings"} {
		v := s.settings[strings.ToLower(k)]
		if k == "session_authorization" {
			v = s.user
		}
		s.be.Send(&pgproto3.ParameterStatus{Name: k, Value: v})
	}
	s.be.Send(&pgproto3.BackendKeyData{ProcessID: s.pid, SecretKey: binary.BigEndian.AppendUint32(nil, s.secret)})
	s.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	return s.be.Flush()
}

// versionFor resolves ref ("" = the session's sidecar.as_of, or HEAD)
// once per statement, or once per transaction inside BEGIN … COMMIT.
func (s *session) versionFor(ctx context.Context, ref string) (Version, error) {
	if ref == "" {
		ref = s.asOf
		if ref == "" {
			ref = "HEAD"
		}
	}
	m := &s.stmtVers
	if s.tx != 'I' && !s.readsPerStatement() { // isolation.go
		m = &s.txVers
	}
	if v, ok := (*m)[ref]; ok {
		return v, nil
	}
	v, err := s.srv.src.Resolve(ctx, ref)
	if err != nil {
		if ctx.Err() != nil {
			return Version{}, ctx.Err()
		}
		return Version{}, errf(codeInvalidParam, -1, "%v", err).hint("refs: HEAD, HEAD~N, an LSN like 0/16B3748, @2026-11-30T10:00:00Z, a tag or a branch")
	}
	if *m == nil {
		*m = map[string]Version{}
	}
	(*m)[ref] = v
	return v, nil
}

// set applies SET name = val (nil: RESET).
func (s *session) set(ctx context.Context, name string, val *string) error {
	switch name {
	case "all":
		// Every setting back to the session's start (the startup
		// packet's values, PostgreSQL's reset values), then the rules
		// below; the open transaction keeps its isolation level.
		if s.initial != nil {
			iso, ok := s.settings["transaction_isolation"]
			s.settings = maps.Clone(s.initial.settings)
			s.timeout = s.initial.timeout
			if ok {
				s.settings["transaction_isolation"] = iso
			}
		}
		s.asOf = ""
		s.settings["sidecar.as_of"] = ""
		maps.Copy(s.settings, literalDefaults) // scs.go
		maps.Copy(s.settings, s.defaults)      // the server's (serverdefaults.go)
		return s.setTimeZone(ctx, nil)
	case "sidecar.as_of":
		if val == nil || *val == "" || strings.EqualFold(*val, "head") {
			s.asOf, s.settings[name] = "", ""
			return nil
		}
		if _, err := s.srv.src.Resolve(ctx, *val); err != nil {
			return errf(codeInvalidParam, -1, "sidecar.as_of: %v", err)
		}
		s.asOf, s.settings[name] = *val, *val
		return nil
	case "transaction_isolation", "default_transaction_isolation", setTransactionIsolation:
		return s.setIsolation(name, val) // isolation.go
	case "default_transaction_read_only", "transaction_read_only":
		if val != nil {
			if b, err := parseAs(oidBool, *val); err == nil && b == false {
				return errf(codeReadOnly, -1, "cannot set transaction read-write mode: sidecar is a read-only mirror")
			}
		}
		return nil
	case "timezone":
		return s.setTimeZone(ctx, val) // timezone.go
	case "intervalstyle":
		if val != nil {
			// Interval result columns print in the style; a statement
			// printing an interval inside itself is refused
			// (vecPlan.settingsFollowed). Rails sets iso_8601 on
			// every connection.
			st, ok := types.IntervalStyleOf(*val)
			if !ok {
				shown := name // the name as written before 18, the parameter's own from 18
				if v := s.followedVersionNum(); v == 0 || v >= 180000 {
					shown = "IntervalStyle"
				}
				return errf(codeInvalidParam, -1, "invalid value for parameter \"%s\": \"%s\"", shown, *val).
					hint("Available values: postgres, postgres_verbose, sql_standard, iso_8601.")
			}
			s.settings[name] = st
			return nil
		}
	case "datestyle":
		if val != nil {
			cur := s.settings[name]
			if cur == "" {
				cur = sessionDefaults[name]
			}
			v, err := parseDateStyle(cur, *val, s.followedVersionNum()) // datestyle.go
			if err != nil {
				return err
			}
			s.settings[name] = v
			return nil
		}
	case "client_encoding":
		if val != nil && !strings.EqualFold(strings.ReplaceAll(*val, "-", ""), "utf8") && !strings.EqualFold(*val, "unicode") {
			return unsupported(-1, "client_encoding "+strconv.Quote(*val)).hint("sidecar speaks UTF8 only")
		}
		return nil
	case "standard_conforming_strings", "escape_string_warning", "backslash_quote":
		return s.setLiteralSetting(name, val) // scs.go
	case "statement_timeout":
		if val == nil {
			s.timeout = nil
			s.settings[name] = formatTimeout(s.srv.opts.StatementTimeout)
			return nil
		}
		d, err := parseTimeout(*val)
		if err != nil {
			return err
		}
		s.timeout, s.settings[name] = &d, formatTimeout(d)
		return nil
	}
	if handled, err := s.setParam(name, val); handled { // settings_params.go
		return err
	}
	switch d, ok := s.settingDefault(name); {
	case val != nil:
		s.settings[name] = *val
	case ok:
		s.settings[name] = d // RESET: the session's default, as SHOW prints it
	default:
		delete(s.settings, name)
	}
	return nil
}

// statementTimeout is the session's statement_timeout: SET's value, or
// the server's sql.statement_timeout.
func (s *session) statementTimeout() time.Duration {
	if s.timeout != nil {
		return *s.timeout
	}
	return s.srv.opts.StatementTimeout
}

// begin starts running one statement: a context that ends at the
// statement timeout, on a cancel request, or when the client goes away
// while it runs (the connection is watched, see wireReader.watch).
func (s *session) begin(ctx context.Context) (context.Context, func()) {
	var cancel context.CancelFunc
	if d := s.statementTimeout(); d > 0 {
		ctx, cancel = context.WithTimeout(ctx, d)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	s.runMu.Lock()
	s.running, s.byUser = cancel, false
	s.runMu.Unlock()
	clear(s.stmtVers)
	s.stmtStart = time.Now()
	s.stmtRegex = builtin.NewRegexCache()
	if s.tx == 'I' {
		s.txStart = s.stmtStart
	}
	stopWatch := s.wr.watch(func() { s.cancelRunning(false) })
	return ctx, func() {
		stopWatch()
		s.runMu.Lock()
		s.running = nil
		s.runMu.Unlock()
		cancel()
	}
}

// cancelRunning cancels the running statement, on the user's request
// (a CancelRequest) or because its client went away.
func (s *session) cancelRunning(byUser bool) {
	s.runMu.Lock()
	if s.running != nil {
		s.byUser = byUser
		s.running()
	}
	s.runMu.Unlock()
}

// ctxError maps a statement context's end to 57014.
func (s *session) ctxError(ctx context.Context, err error) error {
	if ctx.Err() == nil || !(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil) {
		return err
	}
	s.runMu.Lock()
	byUser := s.byUser
	s.runMu.Unlock()
	if byUser {
		return errf(codeCanceled, -1, "canceling statement due to user request")
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return errf(codeCanceled, -1, "canceling statement due to statement timeout").hint("statement_timeout is " + s.statementTimeout().String())
	}
	return err
}

// loop reads messages until Terminate or the connection ends.
func (s *session) loop(ctx context.Context) {
	skipping := false
	for {
		if s.wr.gone.Load() {
			return
		}
		msg, err := s.wr.receive()
		if err != nil {
			var fe *fatalError
			var e *Error
			switch {
			case errors.As(err, &fe):
				s.srv.log.Info("sql: closing a connection after a protocol violation", "remote", s.conn.RemoteAddr(), "err", fe.e.Msg)
				r := fe.e.response("")
				r.Severity, r.SeverityUnlocalized = "FATAL", "FATAL"
				s.be.Send(r)
				s.be.Flush()
				return
			case errors.As(err, &e):
				// A malformed message whose length was valid: an error
				// like any other, and the stream goes on (after a Query,
				// ReadyForQuery; otherwise skip to Sync).
				s.be.Send(e.response(""))
				if s.tx == 'T' {
					s.tx = 'E'
				}
				if s.wr.hdr[0] == 'Q' {
					s.be.Send(&pgproto3.ReadyForQuery{TxStatus: s.tx})
				} else {
					skipping = true
				}
				if s.be.Flush() != nil {
					return
				}
				continue
			}
			return
		}
		if skipping {
			switch msg.(type) {
			case *pgproto3.Sync:
				skipping = false
			case *pgproto3.Terminate:
				return
			default:
				continue
			}
		}
		var qerr error
		query := ""
		switch m := msg.(type) {
		case *pgproto3.Query:
			s.simpleQuery(ctx, m.String)
		case *pgproto3.Parse:
			query = m.Query
			qerr = s.parse(ctx, m)
		case *pgproto3.Bind:
			qerr = s.bind(ctx, m)
		case *pgproto3.Describe:
			qerr = s.describe(ctx, m)
		case *pgproto3.Execute:
			qerr = s.execute(ctx, m)
		case *pgproto3.Close:
			if m.ObjectType == 'S' {
				s.dropPrepared(m.Name)
			} else {
				s.dropPortal(m.Name)
			}
			s.be.Send(&pgproto3.CloseComplete{})
		case *pgproto3.Sync:
			if s.tx == 'I' {
				s.closePortals()
			}
			s.be.Send(&pgproto3.ReadyForQuery{TxStatus: s.tx})
			if s.be.Flush() != nil {
				return
			}
		case *pgproto3.Flush:
			if s.be.Flush() != nil {
				return
			}
		case *pgproto3.Terminate:
			return
		default:
			qerr = errf(codeProtocol, -1, "unexpected message %T", msg)
		}
		if qerr != nil {
			if _, isExec := msg.(*pgproto3.Execute); !isExec {
				s.srv.met.statement(time.Now(), qerr) // Execute counts its own
			}
			e := toError(qerr)
			s.srv.log.Debug("sql: statement failed", "code", e.Code, "err", e.Msg, "query", query)
			if e == errReplan {
				e = errf(codeFeatureChanged, -1, "cached plan must not change result type")
			}
			s.be.Send(e.response(query))
			if s.tx == 'T' {
				s.tx = 'E'
			}
			skipping = true
			if s.be.Flush() != nil {
				return
			}
		}
	}
}

const codeFeatureChanged = "0A000"

// simpleQuery runs a Query message: every statement in turn, stopping at
// the first error, then ReadyForQuery.
func (s *session) simpleQuery(ctx context.Context, query string) {
	defer func() {
		s.be.Send(&pgproto3.ReadyForQuery{TxStatus: s.tx})
		s.be.Flush()
	}()
	fail := func(err error) {
		e := toError(err)
		s.srv.log.Debug("sql: statement failed", "code", e.Code, "err", e.Msg, "query", query)
		s.be.Send(e.response(query))
		if s.tx == 'T' {
			s.tx = 'E'
		}
		if s.tx == 'I' && s.implicitTx {
			s.txEnd(false) // the implicit transaction rolls back (txsettings.go)
		}
	}
	sctx, done := s.begin(ctx)
	defer done()
	plans, err := s.plans(sctx, query, nil)
	if err != nil {
		err = s.ctxError(sctx, err)
		s.srv.met.statement(time.Now(), err)
		fail(err)
		return
	}
	if s.tx == 'I' && len(plans) > 1 {
		// Several statements run in one implicit transaction: a failing
		// one undoes the SETs before it, SET LOCAL lasts to the end.
		s.txBegin(true)
		defer func() {
			if s.tx == 'I' && s.implicitTx {
				s.txEnd(true)
			}
		}()
	}
	key := s.planKeyPrefix()
	lex := s.literalSettings() // the whole string is lexed as it arrived (planQueryFrom)
	for i := 0; i < len(plans); i++ {
		p := plans[i]
		if now := s.planKeyPrefix(); now != key && i > 0 {
			// A statement before this one changed a setting the plans
			// depend on (SET search_path …; SELECT …): PostgreSQL plans
			// each statement of a simple query when it reaches it, so
			// the rest are planned again under the new values.
			key = now
			ps, err := s.planQueryFrom(sctx, query, nil, nil, i, lex)
			if err == nil && len(ps) != len(plans) {
				err = fmt.Errorf("sql: statement %d planned again as %d statements of %d", i+1, len(ps), len(plans))
			}
			if err != nil {
				err = s.ctxError(sctx, err)
				s.srv.met.statement(time.Now(), err)
				fail(err)
				return
			}
			plans, p = ps, ps[i]
		}
		if p.kind == "empty" {
			s.be.Send(&pgproto3.EmptyQueryResponse{})
			continue
		}
		start := time.Now()
		for attempt := 0; ; attempt++ {
			err = s.run(sctx, p, nil, nil, 0, nil, true)
			if err == errReplan && attempt == 0 {
				ps, perr := s.planQuery(sctx, query, nil)
				if perr != nil {
					err = perr
					break
				}
				for _, np := range ps {
					if np.kind == p.kind && len(ps) == 1 {
						p = np
					}
				}
				continue
			}
			break
		}
		if err != nil {
			err = s.ctxError(sctx, err)
			s.srv.met.statement(start, err)
			fail(err)
			return
		}
		s.srv.met.statement(start, nil)
	}
}

// txAllowed refuses statements in a failed transaction.
func (s *session) txAllowed(p *plan) error {
	if s.tx == 'E' && p.kind != "commit" && p.kind != "rollback" && p.kind != "rollback_to" {
		return errf(codeInFailedTx, -1, "current transaction is aborted, commands ignored until end of transaction block")
	}
	return nil
}

// run executes one plan. For a select it sends RowDescription (when
// describe), the rows (at most maxRows, keeping the rest in pt), and the
// CommandComplete or PortalSuspended.
func (s *session) run(ctx context.Context, p *plan, params []Value, formats []int16, maxRows int, pt *portal, describe bool) (err error) {
	defer catchPageError(&err) // corruptpage.go: a damaged heap page fails the statement, not the connection
	return s.run1(ctx, p, params, formats, maxRows, pt, describe)
}

// run1 is run without the guard for damaged pages.
func (s *session) run1(ctx context.Context, p *plan, params []Value, formats []int16, maxRows int, pt *portal, describe bool) error {
	if err := s.txAllowed(p); err != nil {
		return err
	}
	s.tookSnapshot(p) // isolation.go
	switch p.kind {
	case "begin":
		if s.tx != 'I' {
			s.be.Send(&pgproto3.NoticeResponse{Severity: "WARNING", SeverityUnlocalized: "WARNING", Code: "25001", Message: "there is already a transaction in progress"})
		} else {
			s.txBegin(false) // txsettings.go
			s.tx, s.txVers = 'T', map[string]Version{}
			for k, v := range s.stmtVers {
				s.txVers[k] = v
			}
			if p.setVal != nil && *p.setVal != "" {
				if err := s.startTx(*p.setVal); err != nil { // isolation.go
					return err // the transaction is open, failed ('E'), as PostgreSQL's
				}
			} else if err := s.startTx(""); err != nil {
				return err
			}
		}
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
		return nil
	case "commit", "rollback":
		tag := strings.ToUpper(p.kind)
		if s.tx == 'E' {
			tag = "ROLLBACK"
		}
		if s.tx == 'I' {
			s.be.Send(&pgproto3.NoticeResponse{Severity: "WARNING", SeverityUnlocalized: "WARNING", Code: "25P01", Message: "there is no transaction in progress"})
		}
		implicit := s.tx == 'I' && s.implicitTx
		s.txEnd(tag == "COMMIT") // txsettings.go
		if implicit {
			s.txBegin(true) // the next statements of the query: a new implicit transaction
		}
		s.endTx(tag == "COMMIT")
		s.tx, s.txVers = 'I', nil
		s.endIsolation() // isolation.go
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
		return nil
	case "savepoint", "release", "rollback_to":
		return s.runSavepoint(p) // txsettings.go
	case "discard":
		if err := s.discardAll(ctx); err != nil {
			return err
		}
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
		return nil
	case "set":
		if err := s.runSet(ctx, p); err != nil { // txsettings.go
			return err
		}
		if p.setName == "application_name" && p.setVal != nil {
			s.be.Send(&pgproto3.ParameterStatus{Name: "application_name", Value: *p.setVal})
		}
		if p.setName == "timezone" || p.setName == "all" {
			s.be.Send(&pgproto3.ParameterStatus{Name: "TimeZone", Value: s.settings["timezone"]})
		}
		if p.setName == "standard_conforming_strings" || p.setName == "all" { // reported, as PostgreSQL does: drivers escape by it
			s.be.Send(&pgproto3.ParameterStatus{Name: "standard_conforming_strings", Value: s.settings["standard_conforming_strings"]})
		}
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
		return nil
	case "noop":
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(p.tag)})
		return nil
	case "deallocate":
		return s.deallocate(p.setName) // prepare_sql.go
	case "prepare":
		return s.runPrepare(ctx, p)
	case "execute":
		ps, params, err := s.sqlExecute(ctx, p)
		if err != nil {
			return err
		}
		err = s.run1(ctx, ps.plan, params, formats, maxRows, pt, describe)
		if err == errReplan {
			// A table it reads changed its columns since PREPARE: as
			// PostgreSQL's plan cache, plan it again and run it when its
			// result keeps its columns' types, else fail as PostgreSQL
			// does (a client re-prepares on that message).
			if err = s.replanPrepared(ctx, ps, params); err != nil {
				return err
			}
			err = s.run1(ctx, ps.plan, params, formats, maxRows, pt, describe)
		}
		return err
	case "show":
		if p.setName == "all" {
			if describe {
				s.be.Send(s.rowDescription(p, formats))
			}
			all := s.allSettings() // settings_params.go: the server's values too
			for _, k := range slices.Sorted(maps.Keys(all)) {
				v, ok, _ := s.showSetting(k) // pgcatalog_settings.go: lc_collate listed when known
				if !ok {
					continue
				}
				name, desc := s.paramDisplay(k) // settings_params.go
				s.sendRow([][]byte{[]byte(name), []byte(v), []byte(desc)})
			}
			s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SHOW")})
			return nil
		}
		v, ok, err := s.showSetting(p.setName) // pgcatalog_settings.go
		if err != nil {
			return err
		}
		if !ok {
			return errf(codeUndefinedObject, -1, "unrecognized configuration parameter \"%s\"", p.setName)
		}
		if describe {
			s.be.Send(s.rowDescription(p, formats))
		}
		s.be.Send(&pgproto3.DataRow{Values: [][]byte{[]byte(v)}})
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SHOW")})
		return nil
	case "empty":
		s.be.Send(&pgproto3.EmptyQueryResponse{})
		return nil
	case "declare", "fetch", "close":
		return s.runCursor(ctx, p, params, formats, describe)
	case "copy":
		return s.runCopy(ctx, p, params) // copyout_run.go
	case "explain":
		if describe {
			s.be.Send(s.rowDescription(p, formats))
		}
		for _, l := range p.explain {
			s.sendRow([][]byte{[]byte(l)})
		}
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("EXPLAIN")})
		return nil
	}
	// select
	if describe {
		s.be.Send(s.rowDescription(p, formats))
	}
	enc := s.encoder(p, formats)
	if pt != nil && pt.started {
		return s.resume(pt, maxRows, enc)
	}
	s.srv.selectRuns.Add(1)
	ex := &execCtx{ctx: ctx, src: s.srv.src, sess: s, params: params}
	var buffered [][]Value
	n := 0
	if p.direct && maxRows <= 0 && directFormats(p, formats) {
		ex.raw = s.directRows(p, formats, &n)
	}
	err := p.run(ex, func(row []Value) error {
		if maxRows > 0 && n >= maxRows {
			if pt != nil {
				if err := pt.holdRow(s.srv.opts.QueryMemory, row); err != nil {
					buffered = nil
					return err
				}
			}
			buffered = append(buffered, row)
			return nil
		}
		vals, err := enc(row)
		if err != nil {
			return err
		}
		s.sendRow(vals)
		n++
		if n%256 == 0 {
			if err := s.be.Flush(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if pt != nil {
			pt.drop() // nothing held after a failure
		}
		return err
	}
	s.srv.met.rows.Add(float64(n))
	if pt != nil {
		pt.started, pt.sent = true, n
		if len(buffered) > 0 {
			pt.rows = buffered
			s.be.Send(&pgproto3.PortalSuspended{})
			return nil
		}
		pt.done = true
	}
	s.be.Send(&pgproto3.CommandComplete{CommandTag: selectTag(n)})
	return nil
}

// resume sends the next rows of a suspended portal.
func (s *session) resume(pt *portal, maxRows int, enc func([]Value) ([][]byte, error)) error {
	if pt.done {
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 0")})
		return nil
	}
	n := 0
	for len(pt.rows) > 0 && (maxRows <= 0 || n < maxRows) {
		vals, err := enc(pt.rows[0])
		if err != nil {
			return err
		}
		s.sendRow(vals)
		pt.sentRows(1)
		n++
	}
	pt.sent += n
	s.srv.met.rows.Add(float64(n))
	if len(pt.rows) > 0 {
		s.be.Send(&pgproto3.PortalSuspended{})
		return nil
	}
	pt.done = true
	s.be.Send(&pgproto3.CommandComplete{CommandTag: selectTag(n)})
	return nil
}

func typeSize(t uint32) int16 {
	switch t {
	case oidBool, oidCharType:
		return 1
	case oidInt2:
		return 2
	case oidInt4, oidFloat4, oidOID, oidDate,
		24, 2202, 2203, 2204, oidRegclass, 2206, 3734, 3769, 4089, 4096, 4191: // the reg types: an oid (typlen 4)
		return 4
	case oidInt8, oidFloat8, oidTimestamp, oidTimestamptz, oidTime:
		return 8
	case oidUUID:
		return 16
	case oidName:
		return 64
	}
	return -1
}

func formatFor(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return 0
	case 1:
		return formats[0]
	}
	if i < len(formats) {
		return formats[i]
	}
	return 0
}

func (s *session) rowDescription(p *plan, formats []int16) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{}
	for i, c := range p.cols {
		rd.Fields = append(rd.Fields, pgproto3.FieldDescription{Name: []byte(c.name), TableOID: c.tableOID, TableAttributeNumber: uint16(c.attnum),
			DataTypeOID: c.typ, DataTypeSize: wireTypeSize(p, c.typ), TypeModifier: c.typmod, Format: formatFor(formats, i)})
	}
	return rd
}

// directRows sends the stored rows of a direct plan (direct.go): each
// target's value is the row's bytes for its column (an integer asked for
// in binary: its send form, directSend), counted in *n.
func (s *session) directRows(p *plan, formats []int16, n *int) func(row []byte) error {
	idx := make([]int, len(p.targets))
	for i, e := range p.targets {
		idx[i] = e.(*colExpr).idx
	}
	width := len(p.from[0].table.Columns)
	cols := make([][]byte, width)
	vals := make([][]byte, len(idx))
	send := directSend(p, formats)
	buf := make([]byte, 0, 8*len(idx))
	return func(row []byte) error {
		clear(cols)
		it := rowenc.NewIter(row)
		for it.Next() {
			if c := it.Column(); c < width {
				cols[c] = it.Value()
			}
		}
		if err := it.Err(); err != nil {
			return errf(codeInternal, -1, "stored row: %v", err)
		}
		buf = buf[:0]
		for i, c := range idx {
			v := cols[c]
			if w := send[i]; w != 0 && v != nil {
				at := len(buf)
				var ok bool
				if buf, ok = appendIntSend(buf, w, v); !ok {
					return errf(codeInternal, -1, "stored integer %q", v)
				}
				v = buf[at:]
			}
			vals[i] = v
		}
		s.sendRow(vals)
		if *n++; *n%256 == 0 {
			return s.be.Flush()
		}
		return nil
	}
}

// emptyValue is a non-NULL empty value.
var emptyValue = []byte{}

// encoder renders result rows in the requested formats: text is the
// canonical text; binary goes through pgtype from that text. The row's
// bytes share one buffer and the slice of values is reused: the caller
// sends each row before asking for the next.
func (s *session) encoder(p *plan, formats []int16) func([]Value) ([][]byte, error) {
	var out [][]byte
	var buf []byte
	var ends []int
	return func(row []Value) ([][]byte, error) {
		out, buf, ends = out[:0], buf[:0], ends[:0]
		for i, v := range row {
			t := p.cols[i].typ
			if p.kind == "select" && i < len(p.targets) {
				t = p.targets[i].typ()
			}
			var txt string
			switch c := v.(type) {
			case nil:
				ends = append(ends, -1)
				continue
			case engineCell:
				v, txt = c.v, c.txt
				if formatFor(formats, i) != 0 {
					txt = c.plainText()
				}
			case storedText:
				txt = *c.s
				if formatFor(formats, i) != 0 {
					var err error
					if v, err = fromText(t, &txt); err != nil {
						return nil, err
					}
				}
			default:
				var ok bool
				if txt, ok = render(v, t); !ok {
					ends = append(ends, -1)
					continue
				}
			}
			if formatFor(formats, i) == 0 {
				if t == types.Timestamptz+1 && !s.sessionZone().IsUTC() { // timestamptz[]: its elements print at UTC
					return nil, unsupported(-1, "an array of timestamptz in text format when TimeZone is not UTC")
				}
				if t == types.ArrayOf(types.Tstzrange) && !s.sessionZone().IsUTC() {
					return nil, unsupported(-1, "an array of tstzrange in text format when TimeZone is not UTC")
				}
				if styled, ok, err := s.dateStyleText(t, txt); err != nil { // datestyle.go
					return nil, err
				} else if ok {
					txt = styled
				} else if (t == oidTimestamptz || t == types.Tstzrange) && s.zone != nil {
					var err error
					if txt, err = s.zoneText(t, txt); err != nil { // timezone.go
						return nil, err
					}
				}
				buf = append(buf, txt...)
			} else {
				if k := p.cols[i].typ; k != t && lplan.RegTypeName(k) != "" {
					// A reg column's value is its name's text here (vexec.go
					// regOutputs); its send form is an OID: refused.
					return nil, unsupported(-1, "binary format for type "+lplan.RegTypeName(k)).hint("request text format for this column")
				}
				b, ok := opaqueSend(p, t, txt) // opaquesend.go
				if !ok {
					var err error
					if b, err = s.binary(v, t, txt); err != nil {
						return nil, err
					}
				}
				buf = append(buf, b...)
			}
			ends = append(ends, len(buf))
		}
		start := 0
		for _, e := range ends {
			if e < 0 {
				out = append(out, nil)
				continue
			}
			if e == start {
				out = append(out, emptyValue) // not nil: nil is NULL
				continue
			}
			out = append(out, buf[start:e:e])
			start = e
		}
		return out, nil
	}
}

// binary encodes one value in binary format.
func (s *session) binary(v Value, t uint32, txt string) ([]byte, error) {
	if a, ok := v.(*types.Array); ok && a.NullBitmap {
		return arrayBitmapSend(t, a, txt) // vexec_arraybin.go
	}
	switch t {
	case oidInt2:
		return binary.BigEndian.AppendUint16(nil, uint16(v.(int64))), nil
	case oidInt4, oidOID:
		return binary.BigEndian.AppendUint32(nil, uint32(v.(int64))), nil
	case oidInt8:
		return binary.BigEndian.AppendUint64(nil, uint64(v.(int64))), nil
	case oidFloat8:
		return binary.BigEndian.AppendUint64(nil, types.Float8Bits(v.(float64))), nil
	case oidFloat4:
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(v.(float64)))), nil
	case oidBool:
		if v.(bool) {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	case oidText, oidVarchar, oidBpchar, oidName, oidUnknown, oidJSON:
		return []byte(txt), nil
	case types.JSONB:
		// jsonb_send: version 1, then jsonb_out's text. Through pgtype
		// it was decoded into a Go map and marshaled again — keys in
		// another order, no spaces — which pgx, asyncpg and psycopg's
		// binary cursors read.
		return append([]byte{1}, txt...), nil
	case oidNumeric:
		return numericSend(v.(*Num))
	case oidBytea:
		if b, ok := v.([]byte); ok {
			return b, nil // sql/exec's value under bytea_output = escape (vexec_settings.go)
		}
	}
	if b, ok, err := dateTimeSend(t, txt); ok {
		return b, err // binary_datetime.go
	}
	if t == types.RecordOID || types.ElemOf(t) == types.RecordOID {
		// A record's send form holds its fields' types, which its text
		// here has lost: refused rather than guessed.
		return nil, unsupported(-1, "binary format for type "+typeName(t)+" (anonymous records)").hint("request text format for this column")
	}
	if b, ok, err := catalogBinary(t, txt); ok {
		return b, err // binary_send.go: the catalog's send functions
	}
	typ, ok := s.tm.TypeForOID(t)
	if !ok || !pgtypeExact[t] {
		return nil, unsupported(-1, "binary format for type "+typeName(t)).hint("request text format for this column")
	}
	val, err := typ.Codec.DecodeValue(s.tm, t, pgtype.TextFormatCode, []byte(txt))
	if err != nil {
		return nil, errf(codeInternal, -1, "binary encoding of %s %q: %v", typeName(t), txt, err)
	}
	b, err := s.tm.Encode(t, pgtype.BinaryFormatCode, val, nil)
	if err != nil {
		return nil, errf(codeInternal, -1, "binary encoding of %s %q: %v", typeName(t), txt, err)
	}
	return b, nil
}

// decodeParam reads a bound parameter of type t.
func (s *session) decodeParam(t uint32, format int16, b []byte, n int) (Value, error) {
	if b == nil {
		return nil, nil
	}
	if elem := arrayElemType(t); elem != 0 {
		return s.decodeArrayParam(t, elem, format, b, n)
	}
	if format == 0 {
		txt, err := s.zoneParamText(t, string(b)) // rangecols.go
		if err != nil {
			return nil, err
		}
		v, err := paramAs(t, txt)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	switch t {
	case oidInt2:
		if len(b) == 2 {
			return int64(int16(binary.BigEndian.Uint16(b))), nil
		}
	case oidInt4:
		if len(b) == 4 {
			return int64(int32(binary.BigEndian.Uint32(b))), nil
		}
	case oidInt8:
		if len(b) == 8 {
			return int64(binary.BigEndian.Uint64(b)), nil
		}
	case oidFloat8:
		if len(b) == 8 {
			return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
		}
	case oidBool:
		if len(b) == 1 {
			return b[0] != 0, nil
		}
	case oidText, oidVarchar, oidBpchar, oidName:
		return parseAs(t, string(b))
	default:
		if txt, ok, err := catalogRecv(t, b); ok {
			if err != nil {
				return nil, err
			}
			return paramAs(t, txt) // binary_send.go: the catalog's receive function
		}
		typ, ok := s.tm.TypeForOID(t)
		if ok {
			val, err := typ.Codec.DecodeValue(s.tm, t, pgtype.BinaryFormatCode, b)
			if err == nil {
				txt, err := s.tm.Encode(t, pgtype.TextFormatCode, val, nil)
				if err == nil {
					return paramAs(t, string(txt))
				}
			}
		}
	}
	return nil, errf(codeInvalidBinary, -1, "incorrect binary data format in bind parameter %d", n)
}

const codeInvalidBinary = "22P03"

// parse handles Parse: plan (through the cache) and keep the statement.
func (s *session) parse(ctx context.Context, m *pgproto3.Parse) error {
	if m.Name != "" {
		if _, ok := s.prepared[m.Name]; ok {
			return errf(codeDupPrepared, -1, "prepared statement \"%s\" already exists", m.Name)
		}
	}
	sctx, done := s.begin(ctx)
	defer done()
	asOfParam := len(asOfParams(m.Query)) > 0
	var plans []*plan
	var err error
	if asOfParam {
		plans, err = s.planQuery(sctx, m.Query, m.ParameterOIDs) // never cached: Bind plans it again
	} else {
		plans, err = s.plans(sctx, m.Query, m.ParameterOIDs)
	}
	if err != nil {
		return s.ctxError(sctx, err)
	}
	if len(plans) > 1 {
		return errf(codeSyntax, -1, "cannot insert multiple commands into a prepared statement")
	}
	if err := s.keepPrepared(m.Name, &prepared{query: m.Query, plan: plans[0], types: m.ParameterOIDs, asOfParam: asOfParam, settings: s.planKeyPrefix()}); err != nil {
		return err
	}
	s.be.Send(&pgproto3.ParseComplete{})
	return nil
}

func (s *session) bind(ctx context.Context, m *pgproto3.Bind) error {
	ps, ok := s.prepared[m.PreparedStatement]
	if !ok {
		return errf(codeNoPrepared, -1, "prepared statement \"%s\" does not exist", m.PreparedStatement)
	}
	if err := s.revalidate(ctx, ps); err != nil {
		return err
	}
	p := ps.plan
	if len(m.Parameters) != len(p.params) {
		return errf(codeProtocol, -1, "bind message supplies %d parameters, but prepared statement \"%s\" requires %d", len(m.Parameters), m.PreparedStatement, len(p.params))
	}
	params := make([]Value, len(m.Parameters))
	for i, b := range m.Parameters {
		v, err := s.decodeParam(p.params[i], formatFor(m.ParameterFormatCodes, i), b, i+1)
		if planEnum(p, p.params[i]) && b != nil {
			v, err = string(b), nil // enum.go: enum_in's and enum_recv's label, read by sql/exec
		}
		if err != nil {
			return err
		}
		params[i] = v
	}
	if ps.asOfParam {
		sctx, done := s.begin(ctx)
		ps2, err := s.planQueryArgs(sctx, ps.query, ps.types, params)
		err = s.ctxError(sctx, err)
		done()
		if err != nil {
			return err
		}
		if !sameResult(ps2[0], p) {
			return errReplan // the table's columns at the ref differ from those described
		}
		p = ps2[0]
	}
	if p.kind == "execute" { // EXECUTE name: its statement runs in the portal (prepare_sql.go)
		target, args, err := s.sqlExecute(ctx, p)
		if err != nil {
			return err
		}
		p, params = target.plan, args
	}
	if m.DestinationPortal != "" {
		if _, ok := s.portals[m.DestinationPortal]; ok {
			return errf(codeDupCursor, -1, "portal \"%s\" already exists", m.DestinationPortal)
		}
	}
	s.dropPortal(m.DestinationPortal) // the unnamed one is replaced
	charged := portalBytes(m.Parameters)
	if err := s.chargeKept("portal", m.DestinationPortal, charged); err != nil { // portalbound.go
		return err
	}
	if m.DestinationPortal == "" {
		charged = 0
	}
	s.portals[m.DestinationPortal] = &portal{stmt: ps, plan: p, params: params, formats: m.ResultFormatCodes, charged: charged}
	s.be.Send(&pgproto3.BindComplete{})
	return nil
}

const codeDupCursor = "42P03"

// revalidate plans a prepared statement again when a setting its plan
// depends on changed since it was planned (prepared.settings). Like
// PostgreSQL's plan cache, the statement keeps its parameter types and
// its result's column types: a new plan returning others is refused
// with PostgreSQL's "cached plan must not change result type".
func (s *session) revalidate(ctx context.Context, ps *prepared) error {
	now := s.planKeyPrefix()
	if ps.settings == now || ps.plan.kind == "empty" {
		return nil
	}
	sctx, done := s.begin(ctx)
	defer done()
	plans, err := s.plans(sctx, ps.query, ps.types)
	if ps.asOfParam {
		plans, err = s.planQuery(sctx, ps.query, ps.types)
	}
	if err = s.ctxError(sctx, err); err != nil {
		return err
	}
	if len(plans) != 1 || !sameResult(plans[0], ps.plan) || !slices.Equal(plans[0].params, ps.plan.params) {
		return errf(codeUnsupported, -1, "cached plan must not change result type")
	}
	ps.plan, ps.settings = plans[0], now
	return nil
}

func (s *session) describe(ctx context.Context, m *pgproto3.Describe) error {
	var p *plan
	var formats []int16
	if m.ObjectType == 'S' {
		ps, ok := s.prepared[m.Name]
		if !ok {
			return errf(codeNoPrepared, -1, "prepared statement \"%s\" does not exist", m.Name)
		}
		if err := s.revalidate(ctx, ps); err != nil {
			return err
		}
		p = ps.plan
		s.be.Send(&pgproto3.ParameterDescription{ParameterOIDs: p.params})
		if p.kind == "execute" { // EXECUTE name describes its statement's rows
			if target, ok := s.prepared[p.sqlPrep.name]; ok && target.err == nil && p.sqlPrep.name != "" {
				p = target.plan
			}
		}
	} else {
		pt, ok := s.portals[m.Name]
		if !ok {
			if rd := s.cursorDescription(m.Name); rd != nil {
				s.be.Send(rd)
				return nil
			}
			return errf(codeNoCursor, -1, "portal \"%s\" does not exist", m.Name)
		}
		p, formats = pt.plan, pt.formats
	}
	if p.kind == "fetch" && !p.cursor.move {
		if rd := s.cursorDescription(p.cursor.name); rd != nil {
			s.be.Send(rd)
			return nil
		}
	}
	if p.kind == "select" || p.kind == "show" || p.kind == "explain" {
		s.be.Send(s.rowDescription(p, formats))
	} else {
		s.be.Send(&pgproto3.NoData{})
	}
	return nil
}

func (s *session) execute(ctx context.Context, m *pgproto3.Execute) error {
	pt, ok := s.portals[m.Portal]
	if !ok {
		return errf(codeNoCursor, -1, "portal \"%s\" does not exist", m.Portal)
	}
	sctx, done := s.begin(ctx)
	defer done()
	start := time.Now()
	err := s.execute1(sctx, pt, m)
	s.srv.met.statement(start, err)
	return err
}

// execute1 runs a portal, planning it again once when its tables changed.
func (s *session) execute1(sctx context.Context, pt *portal, m *pgproto3.Execute) error {
	err := s.run(sctx, pt.plan, pt.params, pt.formats, int(m.MaxRows), pt, false)
	if err == errReplan {
		ps, perr := s.planQueryArgs(sctx, pt.stmt.query, pt.stmt.types, pt.params)
		if perr != nil {
			return perr
		}
		if len(ps) != 1 || !sameResult(ps[0], pt.plan) {
			return errReplan
		}
		pt.plan, pt.stmt.plan = ps[0], ps[0]
		err = s.run(sctx, pt.plan, pt.params, pt.formats, int(m.MaxRows), pt, false)
	}
	return s.ctxError(sctx, err)
}

// replanPrepared plans a prepared statement again after a table it reads
// changed its columns (errReplan); a new plan whose result has other
// column types is PostgreSQL's "cached plan must not change result
// type".
func (s *session) replanPrepared(ctx context.Context, ps *prepared, params []Value) error {
	plans, err := s.planQueryArgs(ctx, ps.query, ps.types, params)
	if err != nil {
		return err
	}
	if len(plans) != 1 || !sameResult(plans[0], ps.plan) || !slices.Equal(plans[0].params, ps.plan.params) {
		return errf(codeFeatureChanged, -1, "cached plan must not change result type")
	}
	ps.plan, ps.settings = plans[0], s.planKeyPrefix()
	return nil
}

// sameResult says whether two plans of a statement return the same
// columns' types (a client described one and may be sent the other).
func sameResult(a, b *plan) bool {
	if len(a.cols) != len(b.cols) {
		return false
	}
	for i := range a.cols {
		if a.cols[i].typ != b.cols[i].typ {
			return false
		}
	}
	return true
}

// numericBinary is numeric_send: base-10000 digits without leading or
// trailing zero groups, the weight of the first, the sign and the
// display scale.
func numericBinary(n *Num) []byte {
	var ndig, weight, sign, dscale uint16
	var digits []uint16
	if n.NaN {
		sign = 0xC000
	} else {
		dscale = uint16(max(n.Scale, 0))
		abs := new(big.Int).Abs(&n.V)
		if n.V.Sign() < 0 {
			sign = 0x4000
		}
		s := abs.String()
		sc := int(max(n.Scale, 0))
		for len(s) <= sc {
			s = "0" + s
		}
		ip, fp := s[:len(s)-sc], s[len(s)-sc:]
		for len(ip)%4 != 0 {
			ip = "0" + ip
		}
		for len(fp)%4 != 0 {
			fp += "0"
		}
		all := ip + fp
		w := len(ip)/4 - 1
		for i := 0; i < len(all); i += 4 {
			d, _ := strconv.Atoi(all[i : i+4])
			digits = append(digits, uint16(d))
		}
		for len(digits) > 0 && digits[0] == 0 {
			digits, w = digits[1:], w-1
		}
		for len(digits) > 0 && digits[len(digits)-1] == 0 {
			digits = digits[:len(digits)-1]
		}
		if len(digits) == 0 {
			w = 0
		}
		ndig, weight = uint16(len(digits)), uint16(int16(w))
	}
	b := binary.BigEndian.AppendUint16(nil, ndig)
	b = binary.BigEndian.AppendUint16(b, weight)
	b = binary.BigEndian.AppendUint16(b, sign)
	b = binary.BigEndian.AppendUint16(b, dscale)
	for _, d := range digits {
		b = binary.BigEndian.AppendUint16(b, d)
	}
	return b
}
