package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sidecar runs the CLI in-process with a clean SIDECAR_* environment.
func sidecar(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return sidecarCtx(t, context.Background(), args...)
}

// sidecarCtx is sidecar under ctx: a command expected to fail at once
// that runs on instead (a daemon) ends with ctx rather than hanging the
// test until its timeout.
func sidecarCtx(t *testing.T, ctx context.Context, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "SIDECAR_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	var out, errb bytes.Buffer
	code = run(ctx, args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestHelpListsBuiltCommandsOnly(t *testing.T) {
	out, _, code := sidecar(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, c := range []string{"check", "run", "status", "version"} {
		if !strings.Contains(out, "  "+c+" ") {
			t.Errorf("--help does not list %q:\n%s", c, out)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, code := sidecar(t, "version")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"sidecar ", "go: go1.", "postgresql: servers 14 and newer", "proto_version 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("version output lacks %q:\n%s", want, out)
		}
	}
}

func TestUnknownCommandAndFlagExit2(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"version", "--nope"}, {"version", "extra"}} {
		_, errOut, code := sidecar(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "Error:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

func TestMisspelledConfigKeyExits2NamingIt(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	body := "postgres:\n  url: postgres://u:hunter2-secret@127.0.0.1:1/db\ntables: [t]\ndata_dir: " + dir + "\nslott: x\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := sidecar(t, "check", "--config", file)
	if code != exitUsage {
		t.Fatalf("exit %d, want 2; stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, `unknown key "slott"`) || !strings.Contains(errOut, file) || !strings.Contains(errOut, `did you mean "slot"`) {
		t.Errorf("stderr does not name the key and file: %q", errOut)
	}
	if strings.Contains(out+errOut, "hunter2-secret") {
		t.Errorf("password printed: %q %q", out, errOut)
	}
}

func TestCheckWithoutConfigSaysHowToGiveOne(t *testing.T) {
	_, errOut, code := sidecar(t, "check", "--data-dir", t.TempDir())
	if code != exitUsage || !strings.Contains(errOut, "postgres.url: is required") || !strings.Contains(errOut, "--config") {
		t.Errorf("exit %d stderr %q", code, errOut)
	}
}
