package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sidecar-dev/sidecar/membudget"
)

// namePattern is what we accept for slot and publication names: the slot
// name is sent unquoted in replication commands, so it must be plain.
var namePattern = regexp.MustCompile(`^[a-z0-9_]{1,63}$`)

// validate checks every key and resolves the password. Each problem starts
// with the key it is about.
func (c *Config) validate(env map[string]string) []string {
	if c.machine == nil {
		c.machine = membudget.Detect
	}
	var p []string
	add := func(key, format string, args ...any) {
		p = append(p, key+": "+fmt.Sprintf(format, args...))
	}

	if strings.TrimSpace(c.Postgres.URL) == "" {
		add("postgres.url", "is required: the connection URL of the PostgreSQL server to follow (or set %s)", envName("postgres.url"))
	} else if msg := c.Postgres.resolve(env); msg != "" {
		add("postgres.url", "%s", msg)
	}
	if c.Postgres.PasswordFile != "" {
		if st, err := os.Stat(c.Postgres.PasswordFile); err != nil {
			add("postgres.password_file", "cannot read %s: %v", c.Postgres.PasswordFile, unwrapPathError(err))
		} else if st.Mode().Perm()&0o077 != 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("postgres.password_file: %s is readable by other users (mode %04o); run: chmod 600 %s",
				c.Postgres.PasswordFile, st.Mode().Perm(), c.Postgres.PasswordFile))
		}
	}
	if !namePattern.MatchString(c.Publication) {
		add("publication", "%q is not a valid name: use 1-63 characters of a-z, 0-9 and _", c.Publication)
	}
	if !namePattern.MatchString(c.Slot) {
		add("slot", "%q is not a valid replication slot name: use 1-63 characters of a-z, 0-9 and _", c.Slot)
	}
	if len(c.Tables) == 0 {
		add("tables", `is empty: list the tables to follow as "schema.table", or ["*"] for every table with a primary key`)
	}
	seen := map[string]bool{}
	for _, t := range c.Tables {
		if t == "*" {
			if len(c.Tables) > 1 {
				add("tables", `"*" follows every table with a primary key; it cannot be combined with other names`)
			}
			continue
		}
		name, err := ParseTable(t)
		if err != nil {
			add("tables", "%v", err)
			continue
		}
		if seen[name.String()] {
			add("tables", "%s is listed twice", name)
		}
		seen[name.String()] = true
	}
	if msg := checkWritableDir(c.DataDir); msg != "" {
		add("data_dir", "%s", msg)
	} else if st, err := os.Stat(c.DataDir); err == nil && st.Mode().Perm()&0o077 != 0 {
		// The mirror holds row data; opening the store narrows the mode.
		c.Warnings = append(c.Warnings, fmt.Sprintf("data_dir: %s is accessible by other users (mode %04o) and holds the mirrored rows; the sidecar makes it 0700 when it opens it (or run: chmod 700 %s)",
			c.DataDir, st.Mode().Perm(), c.DataDir))
	}
	if host, port, err := net.SplitHostPort(c.Listen); err != nil || port == "" {
		add("listen", "%q is not host:port (for example 127.0.0.1:7432)", c.Listen)
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		add("listen", "%q: port %q is not a number from 0 to 65535", c.Listen, port)
	} else if host == "" {
		add("listen", "%q listens on every interface; name the address (127.0.0.1:%s keeps the API local)", c.Listen, port)
	}
	if c.History.GCInterval < 0 {
		add("history.gc_interval", "must not be negative, got %s", c.History.GCInterval)
	}
	if c.History.Retain < 0 {
		add("history.retain", "must not be negative, got %s", c.History.Retain)
	}
	if c.Verify.Interval < 0 {
		add("verify.interval", "must not be negative, got %s", c.Verify.Interval)
	}
	if c.Ready.MaxLag <= 0 {
		add("ready.max_lag", "must be positive, got %s", c.Ready.MaxLag)
	}
	if c.API.Token != "" && c.API.TokenFile != "" {
		add("api.token", "set either api.token or api.token_file, not both")
	}
	if c.API.TokenFile != "" {
		if _, err := c.API.BearerToken(); err != nil {
			add("api.token_file", "cannot read %s: %v", c.API.TokenFile, unwrapPathError(err))
		}
	}
	if n, err := ParseBytes(c.Storage.MinFree); err != nil {
		add("storage.min_free", "%v", err)
	} else {
		c.Storage.minFree = n
	}
	c.resolveMemory(add, c.machine)
	if n, err := ParseBytes(c.SQL.MaxMessageSize); err != nil {
		add("sql.max_message_size", "%v", err)
	} else if n < 64<<10 || n > 1<<30 {
		add("sql.max_message_size", "%s is outside 64KiB … 1GiB (PostgreSQL's own cap is 1GiB)", c.SQL.MaxMessageSize)
	} else {
		c.SQL.maxMessage = n
	}
	if c.Heap.CheckpointInterval < 0 {
		add("heap.checkpoint_interval", "%s is negative", c.Heap.CheckpointInterval)
	}
	p = append(p, c.SQL.problems()...)
	p = append(p, c.Remote.problems()...)
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		add("log.level", "%q is not one of debug, info, warn, error", c.Log.Level)
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		add("log.format", "%q is not one of text, json", c.Log.Format)
	}
	return p
}

// resolve parses the URL (without ever echoing it) and finds the password:
// from the URL, else postgres.password_file, else PGPASSWORD. It returns a
// problem description or "".
func (p *Postgres) resolve(env map[string]string) string {
	cc, err := pgconn.ParseConfig(p.URL)
	if err != nil {
		return "is not a valid PostgreSQL connection URL (expected postgres://user@host:port/dbname?sslmode=...)" + parseHint(err, p.URL)
	}
	switch {
	case cc.Password != "" && urlHasPassword(p.URL):
		p.password = cc.Password
	case p.PasswordFile != "":
		data, err := os.ReadFile(p.PasswordFile)
		if err != nil {
			return "" // reported under postgres.password_file
		}
		p.password = strings.TrimRight(strings.SplitN(string(data), "\n", 2)[0], "\r")
	default:
		p.password = env["PGPASSWORD"]
	}
	if cc.Database == "" {
		return "names no database"
	}
	return ""
}

// parseHint extracts pgconn's reason without the connection string it quotes.
func parseHint(err error, raw string) string {
	msg := err.Error()
	// pgconn quotes the (redacted) string in backticks; keep only the reason.
	if i := strings.LastIndex(msg, "`: "); i >= 0 {
		msg = msg[i+3:]
	}
	msg = redact(msg, raw)
	if msg == "" {
		return ""
	}
	return ": " + msg
}

func urlHasPassword(raw string) bool {
	if u, err := url.Parse(raw); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		_, ok := u.User.Password()
		return ok
	}
	return strings.Contains(raw, "password=")
}

// ConnString is the connection string to use, with the resolved password
// included. Never log it; use Redacted.
func (p Postgres) ConnString() string {
	if p.password == "" || urlHasPassword(p.URL) {
		return p.URL
	}
	if u, err := url.Parse(p.URL); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		user := ""
		if u.User != nil {
			user = u.User.Username()
		}
		u.User = url.UserPassword(user, p.password)
		return u.String()
	}
	return p.URL + " password='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(p.password) + "'"
}

// Password returns the resolved password ("" when none); for redaction.
func (p Postgres) Password() string { return p.password }

// Redacted is the URL with any password replaced by "xxxxx", safe to log.
func (p Postgres) Redacted() string {
	return redact(p.URL, p.URL, p.password)
}

// String keeps the password out of fmt's %v of a Config.
func (p Postgres) String() string { return p.Redacted() }

// redact removes every password found in conn (URL or keyword form), and
// the extra secrets, from msg.
func redact(msg, conn string, extra ...string) string {
	secrets := append([]string{}, extra...)
	if u, err := url.Parse(conn); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			secrets = append(secrets, pw, url.QueryEscape(pw), url.PathEscape(pw))
		}
	}
	if i := strings.Index(conn, "password="); i >= 0 {
		rest := conn[i+len("password="):]
		if strings.HasPrefix(rest, "'") {
			if j := strings.Index(rest[1:], "'"); j >= 0 {
				secrets = append(secrets, rest[1:1+j])
			}
		} else if f := strings.Fields(rest); len(f) > 0 {
			pw := f[0]
			if j := strings.IndexByte(pw, '&'); j >= 0 {
				pw = pw[:j]
			}
			secrets = append(secrets, pw)
		}
	}
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return msg
}

// checkWritableDir reports why dir cannot hold the data directory, or "".
// A missing directory is fine when its parent is writable (run creates it).
func checkWritableDir(dir string) string {
	if strings.TrimSpace(dir) == "" {
		return "is required: the directory where the mirror is stored"
	}
	target := dir
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Sprintf("%s is not a directory", dir)
	case os.IsNotExist(err):
		parent := filepath.Dir(filepath.Clean(dir))
		for {
			if pst, perr := os.Stat(parent); perr == nil {
				if !pst.IsDir() {
					return fmt.Sprintf("%s cannot be created: %s is not a directory", dir, parent)
				}
				break
			}
			next := filepath.Dir(parent)
			if next == parent {
				break
			}
			parent = next
		}
		target = parent
	case err != nil:
		return fmt.Sprintf("%s: %v", dir, unwrapPathError(err))
	}
	f, err := os.CreateTemp(target, ".sidecar-write-test-*")
	if err != nil {
		if target != dir {
			return fmt.Sprintf("%s does not exist and %s is not writable: %v", dir, target, unwrapPathError(err))
		}
		return fmt.Sprintf("%s is not writable: %v", dir, unwrapPathError(err))
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return ""
}

// MarshalJSON keeps the password out of JSON (and slog's JSON handler).
func (p Postgres) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		URL          string `json:"url"`
		PasswordFile string `json:"password_file,omitempty"`
	}{p.Redacted(), p.PasswordFile})
}

// LogValue keeps the password out of slog's text handler.
func (p Postgres) LogValue() slog.Value { return slog.StringValue(p.Redacted()) }

// ParseBytes reads a size: a number of bytes, or one with a unit (KB, MB,
// GB, TB: powers of 1000; KiB, MiB, GiB, TiB: powers of 1024), as in
// "256MiB" or "1.5GB".
func ParseBytes(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	mult := map[string]float64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || f*mult >= 1<<63 {
		return 0, fmt.Errorf("%q is not a size: write bytes or a number with KB, MB, GB, KiB, MiB or GiB (for example 256MiB)", s)
	}
	return uint64(f * mult), nil
}

// problems checks the sql.* keys.
func (s SQL) problems() []string {
	var p []string
	if s.Listen != "" {
		if _, _, err := net.SplitHostPort(s.Listen); err != nil {
			p = append(p, fmt.Sprintf("sql.listen: %q is not host:port: %v", s.Listen, err))
		}
	}
	if (s.TLSCert == "") != (s.TLSKey == "") {
		p = append(p, "sql.tls_cert: set both sql.tls_cert and sql.tls_key, or neither")
	}
	for key, f := range map[string]string{"sql.tls_cert": s.TLSCert, "sql.tls_key": s.TLSKey, "sql.users_file": s.UsersFile} {
		if f != "" {
			if _, err := os.Stat(f); err != nil {
				p = append(p, fmt.Sprintf("%s: cannot read %s: %v", key, f, unwrapPathError(err)))
			}
		}
	}
	if s.MaxConnections < 1 {
		p = append(p, fmt.Sprintf("sql.max_connections: must be at least 1, got %d", s.MaxConnections))
	}
	if s.StatementTimeout < 0 {
		p = append(p, fmt.Sprintf("sql.statement_timeout: must not be negative, got %s", s.StatementTimeout))
	}
	return p
}
