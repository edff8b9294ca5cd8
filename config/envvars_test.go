package config

import (
	"strings"
	"testing"
)

// A pod in a namespace with a Service named "sidecar" (and one named
// "sidecar-sql") gets these variables from Kubernetes; the daemon must start.
var kubernetesEnv = []string{
	"SIDECAR_SERVICE_HOST=10.96.0.12",
	"SIDECAR_SERVICE_PORT=7433",
	"SIDECAR_SERVICE_PORT_SQL=7433",
	"SIDECAR_SERVICE_PORT_API=7432",
	"SIDECAR_PORT=tcp://10.96.0.12:7433",
	"SIDECAR_PORT_7433_TCP=tcp://10.96.0.12:7433",
	"SIDECAR_PORT_7433_TCP_PROTO=tcp",
	"SIDECAR_PORT_7433_TCP_PORT=7433",
	"SIDECAR_PORT_7433_TCP_ADDR=10.96.0.12",
	"SIDECAR_PORT_7432_TCP=tcp://10.96.0.12:7432",
	"SIDECAR_SQL_SERVICE_HOST=10.96.0.13",
	"SIDECAR_SQL_SERVICE_PORT=5432",
	"SIDECAR_SQL_PORT=tcp://10.96.0.13:5432",
	"SIDECAR_SQL_PORT_5432_TCP_ADDR=10.96.0.13",
}

func TestKubernetesServiceVariablesDoNotStopTheLoad(t *testing.T) {
	file := writeFile(t, good)
	cfg, err := load(t, file, append([]string{"SIDECAR_SLOT=fromenv"}, kubernetesEnv...)...)
	if err != nil {
		t.Fatalf("Kubernetes service variables stopped the load: %v", err)
	}
	if cfg.Slot != "fromenv" {
		t.Errorf("slot = %q, want the environment's", cfg.Slot)
	}
	for _, w := range cfg.Warnings {
		if strings.Contains(w, "_SERVICE_") || strings.Contains(w, "_PORT") {
			t.Errorf("a Kubernetes service variable was warned about: %s", w)
		}
	}
}

func TestUnknownEnvironmentVariableFarFromAKeyIsAWarning(t *testing.T) {
	file := writeFile(t, good)
	cfg, err := load(t, file, "SIDECAR_BIN=/usr/local/bin/sidecar", "SIDECAR_IMAGE_TAG=v1")
	if err != nil {
		t.Fatalf("a variable far from every key stopped the load: %v", err)
	}
	got := strings.Join(cfg.Warnings, "\n")
	for _, want := range []string{"environment variable SIDECAR_BIN names no config key; ignored", "SIDECAR_IMAGE_TAG names no config key; ignored"} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %q lack %q", got, want)
		}
	}
}

func TestNearMissOfAKeyVariableStillStopsTheLoad(t *testing.T) {
	file := writeFile(t, good)
	for name, want := range map[string]string{
		"SIDECAR_SLOTT":         "SIDECAR_SLOT?",
		"SIDECAR_LOG_LEVL":      "SIDECAR_LOG_LEVEL?",
		"SIDECAR_HISTORY_RETAN": "SIDECAR_HISTORY_RETAIN?",
		"SIDECAR_SQL_LISTN":     "SIDECAR_SQL_LISTEN?",
	} {
		_, err := load(t, file, name+"=x")
		if err == nil || !strings.Contains(err.Error(), name+" names no config key") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want a refusal suggesting %s", name, err, want)
		}
	}
}
