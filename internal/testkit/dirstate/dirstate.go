// Package dirstate records what a directory holds (each file's name, size
// and modification time), so tests can show that a read-only open of a
// data directory wrote nothing.
package dirstate

import (
	"fmt"
	"maps"
	"os"
	"testing"
	"time"
)

// State maps each file name to its size and modification time.
type State map[string]string

// Of returns the state of dir's files; it fails t on error.
func Of(t testing.TB, dir string) State {
	t.Helper()
	out := State{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fmt.Sprintf("%d bytes, modified %s", fi.Size(), fi.ModTime().Format(time.RFC3339Nano))
	}
	return out
}

// Unchanged fails t (naming what) if dir's state differs from before.
func Unchanged(t testing.TB, what, dir string, before State) {
	t.Helper()
	if after := Of(t, dir); !maps.Equal(after, before) {
		t.Errorf("%s changed %s:\nbefore %v\nafter  %v", what, dir, before, after)
	}
}
