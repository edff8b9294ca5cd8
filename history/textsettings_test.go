package history

import (
	"strings"
	"testing"

	"github.com/sidecar-dev/sidecar/rowenc"
)

// TestTextSettingsAreSessionParams: a patch that compares values by their
// text sets exactly the session settings the mirror's texts were printed
// with, client_encoding aside (the patch's reader chooses it).
func TestTextSettingsAreSessionParams(t *testing.T) {
	params := rowenc.SessionParams()
	delete(params, "client_encoding")
	if n := strings.Count(textSettings, "SET LOCAL "); n != len(params) {
		t.Errorf("textSettings has %d settings, want %d: %q", n, len(params), textSettings)
	}
	for name, v := range params {
		if want := "SET LOCAL " + name + " = '" + v + "';"; !strings.Contains(textSettings, want) {
			t.Errorf("textSettings %q lacks %q", textSettings, want)
		}
	}
	if strings.Contains(textSettings, "client_encoding") || !strings.HasSuffix(textSettings, ";\n") {
		t.Errorf("textSettings = %q", textSettings)
	}
}
