package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/head"
	"github.com/sidecar-dev/sidecar/history"
	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/server"
)

// TestCompactThroughDaemon: `sidecar compact` asks the daemon's API to
// compact the in-memory HEAD (all tables, or the named ones); reads served
// by the model answer the same before and after; an unknown table and a
// missing daemon are exit 2 with a message that says why.
func TestCompactThroughDaemon(t *testing.T) {
	f, _ := historyFixture(t)
	mod := head.New(head.Options{})
	sub, err := f.Mirror.Subscribe(mod, mirror.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	deadline := time.Now().Add(30 * time.Second)
	for sub.Delivered() < f.Mirror.Head().EndLSN || !sub.Idle() {
		if time.Now().After(deadline) {
			t.Fatalf("model delivered %s, head %s (%v)", sub.Delivered(), f.Mirror.Head().EndLSN, sub.Err())
		}
		time.Sleep(2 * time.Millisecond)
	}
	srv, err := server.Listen(server.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	svc := history.New(f.DB, f.Mirror)
	svc.SetHead(mod)
	server.RegisterHistory(srv, svc)
	srv.HandleAPI("POST /api/compact", server.CompactHandler(mod))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	cfg := writeConfig(t, f.Dir, srv.Addr(), "")
	scan := func() string {
		out, errOut, code := historyCLI(t, "scan", "public.t", "--limit", "100", "--format", "json", "--config", cfg)
		if code != 0 {
			t.Fatalf("scan: exit %d: %s", code, errOut)
		}
		return out
	}
	served := mod.Served()
	before := scan()
	if mod.Served() == served {
		t.Fatal("the scan did not go through the model")
	}
	for _, args := range [][]string{{"compact"}, {"compact", "T"}, {"compact", "public.t", "--format", "json"}} {
		out, errOut, code := historyCLI(t, append(args, "--config", cfg)...)
		if code != 0 || !strings.Contains(out, "public.t") {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, errOut)
		}
		if !strings.Contains(out, "2 rows") && !strings.Contains(out, `"rows":2`) {
			t.Errorf("%v: %s, want 2 live rows", args, out)
		}
	}
	if after := scan(); after != before {
		t.Fatalf("scan after compaction:\n%s\nbefore:\n%s", after, before)
	}
	if _, errOut, code := historyCLI(t, "compact", "public.nope", "--config", cfg); code != exitUsage || !strings.Contains(errOut, "404") {
		t.Errorf("unknown table: exit %d, %s", code, errOut)
	}
	if _, errOut, code := historyCLI(t, "compact", "--config", writeConfig(t, t.TempDir()+"/none", "127.0.0.1:1", "")); code != exitUsage || !strings.Contains(errOut, "no daemon") {
		t.Errorf("no daemon: exit %d, %s", code, errOut)
	}
}
