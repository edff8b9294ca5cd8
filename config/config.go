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
	"time"
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

	// File is the config file the values were read from ("" when none).
	File string `mapstructure:"-"`
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
	// are kept forever.
	Retain time.Duration `mapstructure:"retain"`
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

// defaults holds the value of every key; a key absent here does not exist.
func defaults() map[string]any {
	return map[string]any{
		"postgres.url":           "",
		"postgres.password_file": "",
		"publication":            "sidecar",
		"slot":                   "sidecar",
		"tables":                 []string{},
		"data_dir":               "/var/lib/sidecar",
		"listen":                 "127.0.0.1:7432",
		"history.retain":         "168h",
		"verify.interval":        "0s",
		"log.level":              "info",
		"log.format":             "text",
	}
}
