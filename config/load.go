package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"github.com/sidecar-dev/sidecar/internal/editdist"
	"github.com/sidecar-dev/sidecar/membudget"
)

// EnvPrefix prefixes every environment override: SIDECAR_POSTGRES_URL sets
// postgres.url.
const EnvPrefix = "SIDECAR"

// EnvConfigFile names the config file when --config is not given.
const EnvConfigFile = "SIDECAR_CONFIG"

// EnvPGBin is read by internal/pgtest, not the config: the directory of
// the PostgreSQL server binaries `sidecar demo` and the tests start their
// throwaway clusters from. It is no config key, and no typo of one.
const EnvPGBin = "SIDECAR_PG_BIN"

// EnvVersityGW is read by internal/s3test, not the config: the versitygw
// binary of the remote tests (.ci/run exports it, and every sidecar a test
// starts inherits it).
const EnvVersityGW = "SIDECAR_VERSITYGW"

// LoadOptions says where a configuration comes from.
type LoadOptions struct {
	// File is the YAML file to read; "" reads none (defaults, environment
	// and flags only).
	File string
	// Flags maps config keys to the command-line flags that override them;
	// a flag counts only when it was set on the command line.
	Flags map[string]*pflag.Flag
	// Environ is the environment to read overrides from; nil means os.Environ().
	Environ []string
	// Machine, if set, replaces reading the process's memory (cgroup
	// limit or RAM) for memory.limit auto: for tests.
	Machine func() (membudget.Machine, error)
}

// Error is a configuration problem; its message names the key and the file.
// Load returns one Error listing every problem found.
type Error struct {
	File     string
	Problems []string
}

func (e *Error) Error() string {
	where := "config"
	if e.File != "" {
		where = "config " + e.File
	}
	if len(e.Problems) == 1 {
		return where + ": " + e.Problems[0]
	}
	return where + ":\n  " + strings.Join(e.Problems, "\n  ")
}

// Load reads, merges and validates a configuration. Errors are *Error and
// never contain the PostgreSQL password.
func Load(opts LoadOptions) (*Config, error) {
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	env := envMap(environ)
	keys := knownKeys()

	v := viper.New()
	v.SetConfigType("yaml")
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	for k, d := range defaults() {
		v.SetDefault(k, d)
	}
	var problems []string
	lines := map[string]int{}
	if opts.File != "" {
		data, err := readFileCapped(opts.File)
		if err != nil {
			return nil, &Error{File: opts.File, Problems: []string{err.Error()}}
		}
		fileKeys, err := yamlKeys(data)
		if err != nil {
			return nil, &Error{File: opts.File, Problems: []string{err.Error()}}
		}
		for _, fk := range fileKeys {
			lines[fk.key] = fk.line
			if !keys[fk.key] && !isSectionOfKnown(fk.key, keys) {
				problems = append(problems, fmt.Sprintf("line %d: unknown key %q%s", fk.line, fk.key, suggest(fk.key, keys)))
			}
		}
		if len(problems) > 0 {
			return nil, &Error{File: opts.File, Problems: problems}
		}
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, &Error{File: opts.File, Problems: []string{fmt.Sprintf("not valid YAML: %v", err)}}
		}
	}
	// Environment: bound explicitly (not AutomaticEnv) so that the
	// environment we were given is the one read, and a SIDECAR_ variable that
	// names no key is reported instead of silently ignored: a near miss of
	// a key stops the load, anything else is a warning (unknownEnv).
	var envWarnings []string
	for name, val := range env {
		if !strings.HasPrefix(name, EnvPrefix+"_") || name == EnvConfigFile || name == EnvPGBin || name == EnvVersityGW {
			continue
		}
		key, ok := envKey(name, keys)
		if !ok {
			problem, warning := unknownEnv(name, keys)
			if problem != "" {
				problems = append(problems, problem)
			}
			if warning != "" {
				envWarnings = append(envWarnings, warning)
			}
			continue
		}
		if key == "tables" {
			v.Set(key, splitList(val))
		} else {
			v.Set(key, val)
		}
		lines[key] = 0 // no longer from the file
	}
	for key, f := range opts.Flags {
		if !keys[key] {
			return nil, fmt.Errorf("config: flag --%s bound to unknown key %q", f.Name, key)
		}
		if f.Changed {
			if key == "tables" {
				v.Set(key, splitList(f.Value.String()))
			} else {
				v.Set(key, f.Value.String())
			}
			lines[key] = 0
		}
	}
	if len(problems) > 0 {
		return nil, &Error{File: opts.File, Problems: problems}
	}

	var cfg Config
	err := v.UnmarshalExact(&cfg, func(dc *mapstructure.DecoderConfig) {
		dc.DecodeHook = mapstructure.ComposeDecodeHookFunc(
			mapstructure.StringToTimeDurationHookFunc(),
			mapstructure.StringToSliceHookFunc(","),
		)
	})
	if err != nil {
		return nil, &Error{File: opts.File, Problems: []string{redact(err.Error(), v.GetString("postgres.url"))}}
	}
	cfg.File = opts.File
	cfg.machine = opts.Machine
	problems = cfg.validate(env)
	if len(problems) > 0 {
		for i, p := range problems {
			if key, _, ok := strings.Cut(p, ": "); ok && lines[key] > 0 {
				problems[i] = fmt.Sprintf("line %d: %s", lines[key], p)
			}
		}
		return nil, &Error{File: opts.File, Problems: problems}
	}
	sort.Strings(envWarnings) // the environment is a map: a stable order
	cfg.Warnings = append(cfg.Warnings, envWarnings...)
	return &cfg, nil
}

// MaxFileBytes caps a config file: a real one is a few KiB, and a path
// such as /dev/zero must fail at once, not fill memory.
const MaxFileBytes = 1 << 20

// readFileCapped reads path, failing when it holds more than
// MaxFileBytes.
func readFileCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %v", unwrapPathError(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %v", unwrapPathError(err))
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("is larger than %d bytes: not a sidecar config (a real one is a few KiB)", MaxFileBytes)
	}
	return data, nil
}

// knownKeys lists the dotted keys of Config, from defaults.
func knownKeys() map[string]bool {
	m := map[string]bool{}
	for k := range defaults() {
		m[k] = true
	}
	return m
}

func isSectionOfKnown(key string, keys map[string]bool) bool {
	for k := range keys {
		if strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return false
}

type fileKey struct {
	key  string
	line int
}

// yamlKeys returns every leaf key of a YAML mapping with its line, so that an
// unknown key can be reported where it is.
func yamlKeys(data []byte) ([]fileKey, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("not valid YAML: %v", err)
	}
	if len(root.Content) == 0 {
		return nil, nil // empty file
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: the top level must be a mapping of keys", doc.Line)
	}
	var out []fileKey
	var walk func(prefix string, n *yaml.Node)
	walk = func(prefix string, n *yaml.Node) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			key := strings.ToLower(k.Value)
			if prefix != "" {
				key = prefix + "." + key
			}
			if val.Kind == yaml.MappingNode && len(val.Content) > 0 {
				walk(key, val)
				continue
			}
			// An empty mapping ("postgress: {}") is a key too: it must
			// name a known section or key, or it is a typo.
			out = append(out, fileKey{key: key, line: k.Line})
		}
	}
	walk("", doc)
	return out, nil
}

func envMap(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// envKey maps SIDECAR_POSTGRES_PASSWORD_FILE to postgres.password_file.
func envKey(name string, keys map[string]bool) (string, bool) {
	for k := range keys {
		if name == envName(k) {
			return k, true
		}
	}
	return "", false
}

// envName is the environment variable that overrides key.
func envName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

func splitList(s string) []string {
	s = strings.Trim(strings.TrimSpace(s), "[]")
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// suggest returns ` (did you mean "x"?)` for the closest known key.
func suggest(key string, keys map[string]bool) string {
	best, bestD := "", 4
	for _, k := range sortedKeys(keys) {
		if d := editdist.Distance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return fmt.Sprintf(" (known keys: %s)", strings.Join(sortedKeys(keys), ", "))
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func suggestEnv(name string, keys map[string]bool) string {
	best, bestD := "", 4
	for _, k := range sortedKeys(keys) {
		if d := editdist.Distance(name, envName(k)); d < bestD {
			best, bestD = envName(k), d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

func sortedKeys(keys map[string]bool) []string {
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
