package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestOwnDaemon: check recognises this configuration's daemon by its
// /healthz on the listen address (an unspecified host is asked on
// loopback), and reports none when nothing answers or it is unhealthy.
func TestOwnDaemon(t *testing.T) {
	var healthy atomic.Bool
	healthy.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" || !healthy.Load() {
			http.Error(w, "no", http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	listen := "0.0.0.0:" + port
	if got := ownDaemon(t.Context(), listen); got != listen {
		t.Errorf("ownDaemon(%s) = %q with a healthy daemon", listen, got)
	}
	healthy.Store(false)
	if got := ownDaemon(t.Context(), listen); got != "" {
		t.Errorf("ownDaemon = %q with an unhealthy daemon", got)
	}
	srv.Close()
	if got := ownDaemon(t.Context(), listen); got != "" {
		t.Errorf("ownDaemon = %q with nothing listening", got)
	}
}
