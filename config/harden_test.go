package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigFileSizeCap: an endless or huge config file fails fast with
// a clear error instead of being read into memory (issue 16 item 5).
func TestConfigFileSizeCap(t *testing.T) {
	start := time.Now()
	_, err := load(t, "/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("--config /dev/zero: %v", err)
	}
	big := writeFile(t, good+"# "+strings.Repeat("x", MaxFileBytes)+"\n")
	if _, err := load(t, big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("a config over the cap: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the cap took %v", d)
	}
}

// TestConfigHardening: the small holes of issue 16 item 5.
func TestConfigHardening(t *testing.T) {
	cases := []struct {
		name, body string
		want       string // "" = loads
	}{
		{"empty map under an unknown key", good + "postgress: {}\n", `unknown key "postgress"`},
		{"empty map under an unknown nested key", good + "history:\n  retian: {}\n", `unknown key "history.retian"`},
		{"empty map under a known section", good + "verify: {}\n", ""},
		{"port over 65535", good + "listen: 127.0.0.1:99999\n", `listen: "127.0.0.1:99999"`},
		{"port not a number", good + "listen: 127.0.0.1:http\n", `port "http"`},
		{"negative port", good + "listen: 127.0.0.1:-1\n", `listen:`},
		{"port 0", good + "listen: 127.0.0.1:0\n", ""},
		{"ipv6", good + "listen: \"[::1]:7432\"\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, writeFile(t, tc.body))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestDataDirOpenToOthersWarns: row data must not be readable by other
// users: `check` warns about a group- or world-accessible data directory
// (the store makes it 0700 when it opens it); a private one, or one not
// made yet, is quiet.
func TestDataDirOpenToOthersWarns(t *testing.T) {
	for _, mode := range []os.FileMode{0o755, 0o750, 0o701, 0o770} {
		file := writeFile(t, good)
		dir := filepath.Join(filepath.Dir(file), "data")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		cfg, err := load(t, file)
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "data_dir") || !strings.Contains(cfg.Warnings[0], "chmod 700 "+dir) {
			t.Errorf("mode %o: warnings %q, want one naming chmod 700 %s", mode, cfg.Warnings, dir)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if cfg, err := load(t, file); err != nil || len(cfg.Warnings) != 0 {
			t.Errorf("mode 700: %v %q", err, cfg.Warnings)
		}
	}
	if cfg, err := load(t, writeFile(t, good)); err != nil || len(cfg.Warnings) != 0 { // not made yet
		t.Errorf("missing data dir: %v", err)
	}
}

// TestPasswordFileReadableByOthersWarns: a password file other users can
// read still works, with a warning that says how to fix it.
func TestPasswordFileReadableByOthersWarns(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The URL has no password, so the file is the one read.
	body := strings.Replace(good, "?sslmode=disable", "?sslmode=disable\n  password_file: "+pw, 1)
	cfg, err := load(t, writeFile(t, body))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("a 0600 password file warns: %v", cfg.Warnings)
	}
	if err := os.Chmod(pw, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = load(t, writeFile(t, body))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "postgres.password_file") || !strings.Contains(cfg.Warnings[0], "chmod 600 "+pw) {
		t.Errorf("a 0644 password file: warnings %q", cfg.Warnings)
	}
	if cfg.Postgres.Password() != "pw" {
		t.Errorf("password not read")
	}
}

// TestStorageMinFree: storage.min_free takes bytes or a size with a unit,
// defaults to 256 MiB, and names the key on a bad value.
func TestStorageMinFree(t *testing.T) {
	cfg, err := load(t, writeFile(t, good))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Storage.MinFreeBytes(); got != 256<<20 {
		t.Errorf("default min_free %d, want 256 MiB", got)
	}
	for in, want := range map[string]uint64{"0": 0, "1048576": 1 << 20, "512MiB": 512 << 20, "1GiB": 1 << 30, "1.5GB": 1_500_000_000, "64 KiB": 64 << 10, "10B": 10} {
		cfg, err := load(t, writeFile(t, good+"storage:\n  min_free: "+in+"\n"))
		if err != nil || cfg.Storage.MinFreeBytes() != want {
			t.Errorf("min_free %q: %v, %v; want %d", in, cfg, err, want)
		}
	}
	for _, bad := range []string{"lots", "-1", "5XB", "1e3", "99999999TiB"} {
		if _, err := load(t, writeFile(t, good+"storage:\n  min_free: \""+bad+"\"\n")); err == nil || !strings.Contains(err.Error(), "storage.min_free") {
			t.Errorf("min_free %q: %v, want an error naming the key", bad, err)
		}
	}
	if cfg, err := load(t, writeFile(t, good), "SIDECAR_STORAGE_MIN_FREE=1MiB"); err != nil || cfg.Storage.MinFreeBytes() != 1<<20 {
		t.Errorf("from the environment: %v", err)
	}
}

// TestHeapMemory: heap.memory defaults to its share of memory.limit,
// takes bytes or a size with a unit, and names the key on a bad value.
func TestHeapMemory(t *testing.T) {
	cfg, err := load(t, writeFile(t, good))
	if err != nil || cfg.Heap.MemoryBytes() == 0 || cfg.Heap.MemoryBytes() != cfg.Memory.Budget().Heap || cfg.Heap.MemoryBytes() > cfg.Memory.Budget().Limit*35/100 {
		t.Fatalf("default heap.memory: %v, %v; want 35 %% of memory.limit", cfg, err)
	}
	cfg, err = load(t, writeFile(t, good+"heap:\n  memory: 2GiB\n"))
	if err != nil || cfg.Heap.MemoryBytes() != 2<<30 {
		t.Errorf("heap.memory 2GiB: %v, %v", cfg, err)
	}
	if _, err := load(t, writeFile(t, good+"heap:\n  memory: lots\n")); err == nil || !strings.Contains(err.Error(), "heap.memory") {
		t.Errorf("heap.memory lots: %v, want an error naming the key", err)
	}
	if cfg, err := load(t, writeFile(t, good), "SIDECAR_HEAP_MEMORY=64MiB"); err != nil || cfg.Heap.MemoryBytes() != 64<<20 {
		t.Errorf("from the environment: %v", err)
	}
}
