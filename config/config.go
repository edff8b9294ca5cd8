// Package config loads and validates the sidecar's configuration: a YAML file
// named by --config, every key overridable by a SIDECAR_* environment variable
// (SIDECAR_POSTGRES_URL for postgres.url) and the common keys by flags.
//
// Precedence, highest first: flag, environment, file, default. Validation
// happens at load and names the key (and the file and line when the value came
// from the file); unknown keys are errors, so a typo is never silently ignored.
// The PostgreSQL password never appears in an error or a log line.
package config

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sidecar-dev/sidecar/membudget"
)

// Config is the whole configuration of one sidecar.
type Config struct {
	Postgres    Postgres `mapstructure:"postgres"`
	Publication string   `mapstructure:"publication"`
	Slot        string   `mapstructure:"slot"`
	// Tables are "schema.table" names (quoted identifiers allowed) or ["*"]
	// for every table with a primary key.
	Tables  []string `mapstructure:"tables"`
	DataDir string   `mapstructure:"data_dir"`
	// Listen is the address of the daemon's HTTP API, metrics and health.
	Listen  string  `mapstructure:"listen"`
	History History `mapstructure:"history"`
	Verify  Verify  `mapstructure:"verify"`
	Log     Log     `mapstructure:"log"`
	Ready   Ready   `mapstructure:"ready"`
	API     API     `mapstructure:"api"`
	Storage Storage `mapstructure:"storage"`
	SQL     SQL     `mapstructure:"sql"`
	Heap    Heap    `mapstructure:"heap"`
	Remote  Remote  `mapstructure:"remote"`
	Memory  Memory  `mapstructure:"memory"`

	// File is the config file the values were read from ("" when none).
	File string `mapstructure:"-"`
	// Warnings are problems that do not stop a load (a password file
	// other users can read); the command logs them.
	Warnings []string `mapstructure:"-"`

	// machine reads the memory the process may use (memory.limit auto);
	// LoadOptions.Machine replaces it in tests.
	machine func() (membudget.Machine, error)
}

// Postgres says how to reach the followed server.
type Postgres struct {
	// URL is a libpq connection URL or keyword/value string. It may carry
	// the password; prefer PasswordFile or PGPASSWORD.
	URL string `mapstructure:"url"`
	// PasswordFile holds the password (first line, trailing newline
	// stripped); used when URL has none.
	PasswordFile string `mapstructure:"password_file"`

	password string // resolved from URL, PasswordFile or PGPASSWORD
}

// History bounds how much history is kept.
type History struct {
	// Retain is how long versions are kept; older ones are collected, tags
	// are kept forever. 0 keeps every version.
	Retain time.Duration `mapstructure:"retain"`
	// GCInterval is how often the daemon applies Retain and collects
	// garbage when some has grown (expired versions, deleted branches,
	// nodes written since the last collection); 0 disables automatic GC.
	GCInterval time.Duration `mapstructure:"gc_interval"`
}

// Verify configures periodic verification.
type Verify struct {
	// Interval between automatic verifications; 0 runs them only on demand.
	Interval time.Duration `mapstructure:"interval"`
}

// Log configures the process log.
type Log struct {
	Level  string `mapstructure:"level"`  // debug, info, warn, error
	Format string `mapstructure:"format"` // text or json
}

// Ready configures /readyz.
type Ready struct {
	// MaxLag is the replication lag (now − last applied commit time, while
	// behind) above which /readyz answers 503.
	MaxLag time.Duration `mapstructure:"max_lag"`
}

// Storage configures the data directory's use of its disk.
type Storage struct {
	// MinFree is the free space data_dir's file system must keep ("256MiB",
	// "1GiB", bytes); below it writes stop with a clear error instead of
	// the process dying in a mapped write. "0" checks nothing.
	MinFree string `mapstructure:"min_free"`

	minFree uint64 // MinFree parsed by validate
}

// MinFreeBytes is MinFree in bytes (valid after Load).
func (s Storage) MinFreeBytes() uint64 { return s.minFree }

// Heap configures the in-memory HEAD (package head: per table a heap of
// pages and a radix index, derived from the trees).
type Heap struct {
	// Memory bounds the decoded pages of the in-memory HEAD, every
	// table's heap together ("2GiB", bytes, or "auto": its share of
	// memory.limit); past it the pages written longest ago are kept
	// compressed and decoded on demand. One part of the memory budget
	// (config.Memory).
	Memory string `mapstructure:"memory"`
	// CheckpointInterval is the least time between two checkpoints of the
	// in-memory HEAD taken while applying (one is also taken at a clean
	// shutdown); a start restores the last one and catches up from the
	// trees instead of rebuilding. 0: only at shutdown.
	CheckpointInterval time.Duration `mapstructure:"checkpoint_interval"`

	memory uint64 // Memory parsed by validate
}

// MemoryBytes is Memory in bytes, resolved against memory.limit (valid
// after Load).
func (h Heap) MemoryBytes() uint64 { return h.memory }

// SQL configures the PostgreSQL wire-protocol front end (sqlfront/).
type SQL struct {
	// Listen is its address; empty turns it off.
	Listen string `mapstructure:"listen"`
	// TLSCert and TLSKey (PEM files) enable TLS for clients that ask.
	TLSCert string `mapstructure:"tls_cert"`
	TLSKey  string `mapstructure:"tls_key"`
	// UsersFile lists users and passwords (name:password or
	// name:SCRAM-SHA-256$…); empty accepts anyone, on loopback only.
	UsersFile string `mapstructure:"users_file"`
	// MaxConnections caps concurrent SQL sessions.
	MaxConnections int `mapstructure:"max_connections"`
	// StatementTimeout cancels longer statements; 0 = none.
	StatementTimeout time.Duration `mapstructure:"statement_timeout"`
	// MaxMessageSize bounds one protocol message (a statement's text, a
	// Bind's parameters), "16MiB" by default: a client claiming more gets
	// 08P01 and is disconnected.
	MaxMessageSize string `mapstructure:"max_message_size"`
	maxMessage     uint64 // MaxMessageSize parsed by validate
}

// MaxMessageBytes is MaxMessageSize in bytes (valid after Load).
func (s SQL) MaxMessageBytes() int { return int(s.maxMessage) }

// API configures the daemon's HTTP API.
type API struct {
	// Token, when set, is required as a bearer token on /api/. Prefer
	// TokenFile; the token never appears in logs.
	Token     string `mapstructure:"token"`
	TokenFile string `mapstructure:"token_file"`
}

// BearerToken returns the API token from Token or the first line of
// TokenFile ("" when neither is set).
func (a API) BearerToken() (string, error) {
	if a.Token != "" || a.TokenFile == "" {
		return a.Token, nil
	}
	data, err := os.ReadFile(a.TokenFile)
	if err != nil {
		return "", fmt.Errorf("api.token_file: %w", err)
	}
	return strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0]), nil
}

// String keeps the token out of printed configs.
func (a API) String() string {
	if a.Token != "" {
		return "{token:xxxxx}"
	}
	return fmt.Sprintf("{token_file:%s}", a.TokenFile)
}

// MarshalJSON keeps the token out of JSON logs.
func (a API) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"token_set": a.Token != "", "token_file": a.TokenFile})
}

// defaults holds the value of every key; a key absent here does not exist.
func defaults() map[string]any {
	m := map[string]any{
		"postgres.url":             "",
		"postgres.password_file":   "",
		"publication":              "sidecar",
		"slot":                     "sidecar",
		"tables":                   []string{},
		"data_dir":                 "/var/lib/sidecar",
		"listen":                   "127.0.0.1:7432",
		"history.retain":           "168h",
		"history.gc_interval":      "10m",
		"verify.interval":          "0s",
		"log.level":                "info",
		"log.format":               "text",
		"ready.max_lag":            "30s",
		"api.token":                "",
		"api.token_file":           "",
		"storage.min_free":         "256MiB",
		"heap.memory":              "auto",
		"memory.limit":             "auto",
		"memory.node_cache":        "auto",
		"memory.badger":            "auto",
		"memory.query":             "auto",
		"memory.ingest":            "auto",
		"heap.checkpoint_interval": "5m",
		"sql.listen":               "127.0.0.1:7433",
		"sql.tls_cert":             "",
		"sql.tls_key":              "",
		"sql.users_file":           "",
		"sql.max_connections":      100,
		"sql.statement_timeout":    "0s",
		"sql.max_message_size":     "16MiB",
	}
	remoteDefaults(m)
	return m
}
