package deploy

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// TestComposeHealthcheck: the sidecar service's healthcheck, run as
// compose runs it (CMD, through bash: the slim image has no curl), passes
// while /healthz on the API port answers 200 and fails otherwise.
func TestComposeHealthcheck(t *testing.T) {
	sc := readCompose(t).Services["sidecar"]
	test, ok := sc.Healthcheck["test"].([]any)
	if !ok || len(test) < 2 || test[0] != "CMD" {
		t.Fatalf("sidecar healthcheck %v, want [CMD, …]", sc.Healthcheck)
	}
	var argv []string
	for _, a := range test[1:] {
		argv = append(argv, fmt.Sprint(a))
	}
	script := strings.Join(argv, " ")
	if !strings.Contains(script, "/7432") || !strings.Contains(script, "/healthz") {
		t.Fatalf("healthcheck %q does not ask /healthz on the API port 7432", script)
	}
	var healthy atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" || !healthy.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	run := func() error {
		args := append([]string(nil), argv...)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "/7432", "/"+port)
		}
		return exec.Command(args[0], args[1:]...).Run()
	}
	healthy.Store(true)
	if err := run(); err != nil {
		t.Errorf("healthcheck failed against a healthy daemon: %v", err)
	}
	healthy.Store(false)
	if err := run(); err == nil {
		t.Error("healthcheck passed against an unhealthy daemon")
	}
	srv.Close()
	if err := run(); err == nil {
		t.Error("healthcheck passed with nothing listening")
	}
}
