package preflight

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"

	"github.com/sidecar-dev/sidecar/replication"
)

// TestSlotInUseBySidecar: with the slot streamed by a sidecar's
// replication connection (application_name "sidecar"), check says the
// running daemon holds it when this configuration's daemon answers
// (OwnDaemon), with no fix and no pg_terminate_backend of its own
// walsender; when none answers, it names another sidecar and says to stop
// it or use another slot before any pg_terminate_backend.
func TestSlotInUseBySidecar(t *testing.T) {
	url := pg.NewDB(t)
	exec(t, url, "CREATE TABLE items (id int PRIMARY KEY)", "CREATE PUBLICATION sidecar FOR TABLE items",
		"SELECT pg_create_logical_replication_slot('sidecar', 'pgoutput')")
	ctx := t.Context()
	rc, err := replication.ConnectReplication(ctx, url) // application_name "sidecar", as the daemon's
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close(context.Background())
	if err := pglogrepl.StartReplication(ctx, rc, "sidecar", 0, pglogrepl.StartReplicationOptions{
		PluginArgs: []string{"proto_version '1'", "publication_names 'sidecar'"}}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	deadline := time.Now().Add(60 * time.Second)
	for {
		var active bool
		if err := conn.QueryRow(ctx, "SELECT active FROM pg_replication_slots WHERE slot_name = 'sidecar'").Scan(&active); err != nil {
			t.Fatal(err)
		}
		if active {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("slot not active 60 s after START_REPLICATION")
		}
		time.Sleep(20 * time.Millisecond)
	}

	p := Params{URL: url, Tables: []string{"items"}, Publication: "sidecar", Slot: "sidecar", OwnDaemon: "127.0.0.1:7432"}
	c := find(t, Run(ctx, p), "slot")
	if c.Status != OK || !strings.Contains(c.Detail, "in use by this configuration's running sidecar") || c.Fix != "" {
		t.Errorf("slot held by this configuration's daemon: %+v", c)
	}
	p.OwnDaemon = ""
	c = find(t, Run(ctx, p), "slot")
	stop := strings.Index(c.Fix, "stop that sidecar")
	if c.Status != Warn || !strings.Contains(c.Detail, "in use by another sidecar") || stop < 0 ||
		strings.Index(c.Fix, "pg_terminate_backend") < stop {
		t.Errorf("slot held by another sidecar: %+v; want a warning saying to stop it first", c)
	}
}
