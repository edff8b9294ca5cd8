package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// binLookup is where findBinDir looks; tests replace it to check the
// not-found message without touching the real system.
type binLookup struct {
	getenv   func(string) string          // os.Getenv
	lookPath func(string) (string, error) // exec.LookPath
	pgConfig func() (string, error)       // output of `pg_config --bindir`
	globRoot string                       // "/usr/lib/postgresql"
}

func systemLookup() binLookup {
	return binLookup{
		getenv:   os.Getenv,
		lookPath: exec.LookPath,
		pgConfig: func() (string, error) {
			p, err := exec.LookPath("pg_config")
			if err != nil {
				return "", err
			}
			out, err := exec.Command(p, "--bindir").Output()
			if err != nil {
				return "", fmt.Errorf("pg_config --bindir: %w", err)
			}
			return strings.TrimSpace(string(out)), nil
		},
		globRoot: "/usr/lib/postgresql",
	}
}

// errNoBinaries is wrapped by findBinDir's error when nothing is found.
var errNoBinaries = errors.New("no PostgreSQL server binaries (initdb, postgres) found")

// EnvBinDir names the environment variable that, when set, is the directory
// of the server binaries (initdb, postgres, pg_ctl) every cluster is started
// from, e.g. one unpacked by scripts/fetch-postgres. It is how CI runs the
// tests on each PostgreSQL major.
const EnvBinDir = "SIDECAR_PG_BIN"

// findBinDir returns the directory holding initdb and postgres: $SIDECAR_PG_BIN
// when set (an error if it lacks them: a mistyped matrix entry must not
// silently test the system's version), else the one of initdb on PATH (symlinks resolved, so that psql, pgbench, pg_recvlogical
// of the same installation are found beside it), else `pg_config --bindir`,
// else the highest version under /usr/lib/postgresql/*/bin.
func findBinDir(l binLookup) (string, error) {
	if dir := l.getenv(EnvBinDir); dir != "" {
		if !hasServer(dir) {
			return "", fmt.Errorf("pgtest: %s=%s: %w there; run scripts/fetch-postgres and set it to a bin dir it prints", EnvBinDir, dir, errNoBinaries)
		}
		return dir, nil
	}
	var tried []string
	if p, err := l.lookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if dir := filepath.Dir(p); hasServer(dir) {
			return dir, nil
		}
		tried = append(tried, p)
	} else {
		tried = append(tried, "initdb on PATH")
	}
	if dir, err := l.pgConfig(); err == nil && dir != "" {
		if hasServer(dir) {
			return dir, nil
		}
		tried = append(tried, dir+" (pg_config --bindir)")
	} else {
		tried = append(tried, "pg_config --bindir")
	}
	if dir := highestVersionDir(l.globRoot); dir != "" {
		return dir, nil
	}
	tried = append(tried, filepath.Join(l.globRoot, "*", "bin"))
	return "", fmt.Errorf("pgtest: %w (tried %s); install them with `apt-get install postgresql` (Debian/Ubuntu) or scripts/fetch-postgres, or set %s or Options.BinDir",
		errNoBinaries, strings.Join(tried, ", "), EnvBinDir)
}

// hasServer reports whether dir holds both initdb and postgres executables.
func hasServer(dir string) bool {
	return isExecutable(filepath.Join(dir, "initdb")) && isExecutable(filepath.Join(dir, "postgres"))
}

// isExecutable reports whether path is an executable regular file.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// findTool looks a client program up where findBinDir looks for the server,
// $SIDECAR_PG_BIN aside: on PATH, in `pg_config --bindir`, then in the
// highest /usr/lib/postgresql/<v>/bin that has it.
func findTool(l binLookup, name string) (string, error) {
	if p, err := l.lookPath(name); err == nil {
		return p, nil
	}
	if dir, err := l.pgConfig(); err == nil && isExecutable(filepath.Join(dir, name)) {
		return filepath.Join(dir, name), nil
	}
	matches, _ := filepath.Glob(filepath.Join(l.globRoot, "*", "bin", name))
	var best string
	var bestVer []int
	for _, m := range matches {
		v := parseVersion(filepath.Base(filepath.Dir(filepath.Dir(m))))
		if v != nil && isExecutable(m) && (best == "" || versionLess(bestVer, v)) {
			best, bestVer = m, v
		}
	}
	if best == "" {
		return "", fmt.Errorf("pgtest: no %s found (PATH, pg_config --bindir, %s); install the PostgreSQL client programs (`apt-get install postgresql-client`)",
			name, filepath.Join(l.globRoot, "*", "bin"))
	}
	return best, nil
}

// highestVersionDir returns root/<v>/bin for the highest numeric version v
// that holds a server, or "".
func highestVersionDir(root string) string {
	matches, _ := filepath.Glob(filepath.Join(root, "*", "bin"))
	type cand struct {
		dir string
		ver []int
	}
	var cands []cand
	for _, m := range matches {
		v := parseVersion(filepath.Base(filepath.Dir(m)))
		if v != nil && hasServer(m) {
			cands = append(cands, cand{m, v})
		}
	}
	sort.Slice(cands, func(i, j int) bool { return versionLess(cands[j].ver, cands[i].ver) })
	if len(cands) == 0 {
		return ""
	}
	return cands[0].dir
}

// parseVersion parses "15" or "9.6" into its numeric parts; nil if not a version.
func parseVersion(s string) []int {
	var v []int
	for _, part := range strings.Split(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return nil
		}
		v = append(v, n)
	}
	return v
}

func versionLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}
