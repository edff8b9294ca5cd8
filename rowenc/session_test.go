package rowenc

import (
	"maps"
	"testing"
)

// TestPinSession: every canonical setting ends up in the parameters exactly
// once, whatever case the connection string spelled it in, and unrelated
// parameters are kept.
func TestPinSession(t *testing.T) {
	params := map[string]string{"timezone": "Asia/Tokyo", "DATESTYLE": "SQL, DMY", "application_name": "x"}
	PinSession(params)
	want := SessionParams()
	want["application_name"] = "x"
	if !maps.Equal(params, want) {
		t.Errorf("PinSession: %v, want %v", params, want)
	}
}
