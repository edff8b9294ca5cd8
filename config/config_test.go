package config

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

const secret = "s3cr3t-Pa55"

func writeFile(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "sidecar.yaml")
	body = strings.ReplaceAll(body, "DATADIR", filepath.Join(dir, "data"))
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const good = `
postgres:
  url: postgres://sidecar@127.0.0.1:5432/app?sslmode=disable
tables: [public.accounts, orders]
data_dir: DATADIR
`

func load(t *testing.T, file string, env ...string) (*Config, error) {
	t.Helper()
	// Never nil: nil reads the process's environment, where the test
	// harness's own SIDECAR_ variables (SIDECAR_MATRIX, SIDECAR_DIFF_FULL,
	// …) would add "names no config key" warnings to every load.
	return Load(LoadOptions{File: file, Environ: append([]string{}, env...)})
}

func TestLoadGoodFileAppliesDefaults(t *testing.T) {
	cfg, err := load(t, writeFile(t, good))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Publication != "sidecar" || cfg.Slot != "sidecar" || cfg.Listen != "127.0.0.1:7432" {
		t.Errorf("defaults not applied: %+v", cfg)
	}
	if cfg.History.Retain != 168*time.Hour || cfg.Verify.Interval != 0 {
		t.Errorf("durations: retain %v interval %v", cfg.History.Retain, cfg.Verify.Interval)
	}
	if got := fmt.Sprint(cfg.Tables); got != "[public.accounts orders]" {
		t.Errorf("tables = %s", got)
	}
	if cfg.Log.Level != "info" || cfg.Log.Format != "text" {
		t.Errorf("log defaults: %+v", cfg.Log)
	}
}

func TestUnknownKeyNamesKeyLineAndSuggestion(t *testing.T) {
	file := writeFile(t, good+"publicaton: mine\nhistory:\n  retian: 1h\n")
	_, err := load(t, file)
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("want *Error, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{file, `unknown key "publicaton"`, `did you mean "publication"`, `line 6`, `unknown key "history.retian"`, `did you mean "history.retain"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
}

func TestEnvironmentOverridesFileAndUnknownEnvIsAnError(t *testing.T) {
	file := writeFile(t, good)
	// SIDECAR_PG_BIN is internal/pgtest's (the demo's server binaries) and
	// SIDECAR_VERSITYGW internal/s3test's, not config keys.
	cfg, err := load(t, file, "SIDECAR_SLOT=other", "SIDECAR_TABLES=a.b, c.d", "SIDECAR_HISTORY_RETAIN=2h", "UNRELATED=1", "SIDECAR_PG_BIN=/opt/pg/bin", "SIDECAR_VERSITYGW=/opt/vgw")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Slot != "other" || fmt.Sprint(cfg.Tables) != "[a.b c.d]" || cfg.History.Retain != 2*time.Hour {
		t.Errorf("env not applied: slot %q tables %v retain %v", cfg.Slot, cfg.Tables, cfg.History.Retain)
	}
	_, err = load(t, file, "SIDECAR_SLOTT=x")
	if err == nil || !strings.Contains(err.Error(), "SIDECAR_SLOTT names no config key") || !strings.Contains(err.Error(), "SIDECAR_SLOT?") {
		t.Errorf("unknown env var: got %v", err)
	}
}

func TestFlagOverridesEnvironment(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("slot", "", "")
	fs.String("log-level", "", "")
	if err := fs.Parse([]string{"--slot=fromflag"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(LoadOptions{
		File:    writeFile(t, good),
		Environ: []string{"SIDECAR_SLOT=fromenv", "SIDECAR_LOG_LEVEL=debug"},
		Flags:   map[string]*pflag.Flag{"slot": fs.Lookup("slot"), "log.level": fs.Lookup("log-level")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Slot != "fromflag" {
		t.Errorf("slot = %q, want the flag's value", cfg.Slot)
	}
	if cfg.Log.Level != "debug" {
		t.Errorf("unset flag overrode env: log.level = %q", cfg.Log.Level)
	}
}

func TestValidationProblems(t *testing.T) {
	cases := []struct {
		name, body string
		env        []string
		want       []string
	}{
		{"missing url", "tables: [a.b]\ndata_dir: DATADIR\n", nil, []string{"postgres.url: is required"}},
		{"url from env", "tables: [a.b]\ndata_dir: DATADIR\n", []string{"SIDECAR_POSTGRES_URL=postgres://u@h/db"}, nil},
		{"bad table", strings.Replace(good, "orders", `'"unterminated'`, 1), nil, []string{"tables:", "unterminated quoted identifier"}},
		{"three parts", strings.Replace(good, "orders", "a.b.c", 1), nil, []string{"3 dotted parts"}},
		{"bad char", strings.Replace(good, "orders", "ord-ers", 1), nil, []string{`"ord-ers" is not a valid identifier`}},
		{"star with others", strings.Replace(good, "orders", `"*"`, 1), nil, []string{`"*" follows every table`}},
		{"duplicate", strings.Replace(good, "orders", "ACCOUNTS", 1), nil, []string{"public.accounts is listed twice"}},
		{"empty tables", strings.Replace(good, "[public.accounts, orders]", "[]", 1), nil, []string{"tables: is empty"}},
		{"bad slot", good + "slot: My-Slot\n", nil, []string{"line 6: slot:", "not a valid replication slot name"}},
		{"bad level", good + "log:\n  level: loud\n", nil, []string{`log.level: "loud"`}},
		{"bad duration", good + "history:\n  retain: forever\n", nil, []string{"retain"}},
		{"data_dir is a file", strings.Replace(good, "DATADIR", "/etc/hostname", 1), nil, []string{"data_dir: /etc/hostname is not a directory"}},
		{"data_dir not writable", strings.Replace(good, "DATADIR", "/proc/sidecar-data", 1), nil, []string{"data_dir: /proc/sidecar-data does not exist and /proc is not writable"}},
		{"listen all interfaces", good + "listen: \":7432\"\n", nil, []string{"listens on every interface"}},
		{"url without database", strings.Replace(good, "/app?", "?", 1), []string{"PGDATABASE="}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, writeFile(t, tc.body), tc.env...)
			if len(tc.want) == 0 {
				if err != nil && !strings.Contains(err.Error(), "names no database") {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestMissingFileIsAnError(t *testing.T) {
	_, err := load(t, "/nonexistent/sidecar.yaml")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/sidecar.yaml") || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("got %v", err)
	}
}

// TestPasswordNeverShown covers every way a password can reach the config
// and every way a config is printed or fails.
func TestPasswordNeverShown(t *testing.T) {
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	urlWithPW := "postgres://sidecar:" + secret + "@127.0.0.1:5432/app?sslmode=disable"
	sources := map[string]struct {
		body string
		env  []string
	}{
		"in url":        {strings.Replace(good, "postgres://sidecar@127.0.0.1:5432/app?sslmode=disable", urlWithPW, 1), nil},
		"in dsn":        {strings.Replace(good, "postgres://sidecar@127.0.0.1:5432/app?sslmode=disable", "'host=127.0.0.1 dbname=app password="+secret+"'", 1), nil},
		"password file": {good + "postgres:\n  password_file: " + pwFile + "\n", nil},
		"PGPASSWORD":    {good, []string{"PGPASSWORD=" + secret}},
		"env url":       {good, []string{"SIDECAR_POSTGRES_URL=" + urlWithPW}},
	}
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			body := src.body
			if name == "password file" {
				body = strings.Replace(good, "  url:", "  password_file: "+pwFile+"\n  url:", 1)
			}
			cfg, err := load(t, writeFile(t, body), src.env...)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Postgres.Password() != secret {
				t.Fatalf("password not resolved: got %q", cfg.Postgres.Password())
			}
			if !strings.Contains(cfg.Postgres.ConnString(), secret) && name != "PGPASSWORD" {
				t.Errorf("ConnString lacks the password")
			}
			var logged bytes.Buffer
			slog.New(slog.NewJSONHandler(&logged, nil)).Info("loaded", "config", cfg, "postgres", cfg.Postgres, "url", cfg.Postgres.Redacted())
			slog.New(slog.NewTextHandler(&logged, nil)).Info("loaded", "config", cfg, "postgres", cfg.Postgres, "value", *cfg)
			for what, out := range map[string]string{
				"%v":       fmt.Sprintf("%v", cfg),
				"%+v":      fmt.Sprintf("%+v", cfg),
				"%v value": fmt.Sprintf("%+v", *cfg),
				"slog":     logged.String(),
				"redacted": cfg.Postgres.Redacted(),
			} {
				if strings.Contains(out, secret) {
					t.Errorf("%s output contains the password: %s", what, out)
				}
			}
			// And in errors: the same source plus a bad key elsewhere.
			_, err = load(t, writeFile(t, body+"slot: BAD!\n"), src.env...)
			if err == nil || strings.Contains(err.Error(), secret) {
				t.Errorf("error leaks or is missing: %v", err)
			}
		})
	}
	// A malformed URL carrying a password: the parse error must not echo it.
	bad := strings.Replace(good, "postgres://sidecar@127.0.0.1:5432/app?sslmode=disable", "postgres://sidecar:"+secret+"@127.0.0.1:notaport/app", 1)
	_, err := load(t, writeFile(t, bad))
	if err == nil || !strings.Contains(err.Error(), "postgres.url") || strings.Contains(err.Error(), secret) {
		t.Errorf("bad URL error: %v", err)
	}
}

func TestParseTable(t *testing.T) {
	cases := map[string]string{
		"orders":                "public.orders",
		"Sales.Orders":          "sales.orders",
		`"Sales"."Order Items"`: `"Sales"."Order Items"`,
		`s."we""ird"`:           `s."we""ird"`,
		`"a.b".c`:               `"a.b".c`,
	}
	for in, want := range cases {
		got, err := ParseTable(in)
		if err != nil {
			t.Errorf("ParseTable(%q): %v", in, err)
			continue
		}
		if got.String() != want {
			t.Errorf("ParseTable(%q) = %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"", ".", "a.", `"`, `""`, "1abc", "a b", `"a"b`, strings.Repeat("x", 64)} {
		if _, err := ParseTable(bad); err == nil {
			t.Errorf("ParseTable(%q) accepted", bad)
		} else if !errors.Is(err, ErrBadTableName) {
			t.Errorf("ParseTable(%q): %v is not ErrBadTableName", bad, err)
		}
	}
}
