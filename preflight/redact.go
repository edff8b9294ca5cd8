package preflight

import (
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// redacted replaces secrets in text shown to users.
const redacted = "xxxxx"

// redactor removes a connection string's secrets from error text. pgx and
// pgconn error messages can quote the connection string or parts of it; the
// report is printed, logged and returned as JSON, so nothing that came from
// the connection string's password may reach it.
type redactor struct {
	secrets []string // longest first, so a secret containing another goes first
}

var (
	// keyword/value form: password=secret or password='se cret'.
	kvPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]+)`)
	// URL form: scheme://user:secret@host.
	urlPassword = regexp.MustCompile(`(://[^:/@\s]*:)([^@\s]*)(@)`)
)

func newRedactor(connStr string) redactor {
	var secrets []string
	add := func(s string) {
		if s != "" {
			secrets = append(secrets, s)
		}
	}
	add(connStr)
	if u, err := url.Parse(connStr); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			add(pw)
			add(url.QueryEscape(pw))
			add(url.PathEscape(pw))
		}
	}
	if m := urlPassword.FindStringSubmatch(connStr); m != nil {
		add(m[2])
		if pw, err := url.PathUnescape(m[2]); err == nil {
			add(pw)
		}
	}
	for _, m := range kvPassword.FindAllStringSubmatch(connStr, -1) {
		add(m[2])
		add(strings.Trim(m[2], "'"))
	}
	if u, err := url.Parse(connStr); err == nil {
		for _, v := range u.Query()["password"] {
			add(v)
			add(url.QueryEscape(v))
		}
	}
	add(os.Getenv("PGPASSWORD"))
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	return redactor{secrets: secrets}
}

// clean returns s with every secret, and anything shaped like a password in
// a connection string, replaced by xxxxx. A very short password also blanks
// unrelated text that happens to contain it: a garbled message is the price
// of never printing a secret.
func (r redactor) clean(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redacted)
	}
	s = kvPassword.ReplaceAllString(s, "${1}"+redacted)
	s = urlPassword.ReplaceAllString(s, "${1}"+redacted+"${3}")
	return s
}

// target describes where connStr points, without its password:
// "user@host:port/database".
func target(cfg *pgconn.Config) string {
	host := cfg.Host
	if strings.HasPrefix(host, "/") {
		host = "socket " + host
	}
	return cfg.User + "@" + host + ":" + itoa(int(cfg.Port)) + "/" + cfg.Database
}
