// Package console is the sidecar's web console: plain HTML, CSS and
// JavaScript embedded in the binary (no CDN, no build step, works
// offline), served by the daemon on its API listener under /console/.
//
// The pages hold no data: they read it from the same /api/ endpoints the
// CLI uses (status, log, tags, diff, scan, verify), and the SQL box from
// POST /api/sql (sql.go: a session of the SQL front end, bounded), so the
// API's bearer token guards the data exactly as for the CLI; the console
// asks for the token once and keeps it in the tab's sessionStorage.
package console

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed assets
var assets embed.FS

// Handler serves the console's files; mount it at Prefix.
func Handler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	files := http.FileServerFS(sub)
	return http.StripPrefix(Prefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The files change with the binary: revalidate instead of caching
		// an old console against a new API.
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:")
		files.ServeHTTP(w, r)
	}))
}

// Prefix is where the console is mounted.
const Prefix = "/console/"
