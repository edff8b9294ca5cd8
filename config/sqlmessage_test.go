package config

import (
	"strings"
	"testing"
)

// TestSQLMaxMessageSize: sql.max_message_size defaults to 16MiB, takes a
// size between 64KiB and 1GiB (PostgreSQL's own cap), and names the key
// on a bad value.
func TestSQLMaxMessageSize(t *testing.T) {
	cfg, err := load(t, writeFile(t, good))
	if err != nil || cfg.SQL.MaxMessageBytes() != 16<<20 {
		t.Fatalf("default sql.max_message_size: %v, %v; want 16MiB", cfg, err)
	}
	if cfg, err := load(t, writeFile(t, good), "SIDECAR_SQL_MAX_MESSAGE_SIZE=1MiB"); err != nil || cfg.SQL.MaxMessageBytes() != 1<<20 {
		t.Errorf("from the environment: %v", err)
	}
	for _, bad := range []string{"lots", "1KiB", "2GiB"} {
		if _, err := load(t, writeFile(t, good), "SIDECAR_SQL_MAX_MESSAGE_SIZE="+bad); err == nil || !strings.Contains(err.Error(), "sql.max_message_size") {
			t.Errorf("sql.max_message_size %s: %v, want an error naming the key", bad, err)
		}
	}
}
