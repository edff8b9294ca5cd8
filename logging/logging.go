// Package logging builds the process logger from the log.* configuration:
// log/slog, text by default, JSON with log.format: json.
//
// Values are written as an operator reads them elsewhere: an LSN in
// PostgreSQL's text form (16/B374D848, as pg_current_wal_lsn() prints it)
// in both formats, and in JSON a duration as seconds (1.5, not slog's
// default of 1500000000 nanoseconds; text keeps Go's "1.5s").
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"time"
)

// New returns a logger writing to w at level ("debug", "info", "warn",
// "error") in format ("text" or "json").
func New(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	switch format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lv, ReplaceAttr: replaceText})), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv, ReplaceAttr: replaceJSON})), nil
	default:
		return nil, fmt.Errorf("log format %q: want text or json", format)
	}
}

// replaceText writes LSNs in PostgreSQL's text form.
func replaceText(_ []string, a slog.Attr) slog.Attr {
	if s, ok := lsnText(a); ok {
		a.Value = slog.StringValue(s)
	}
	return a
}

// replaceJSON writes LSNs in PostgreSQL's text form and durations as
// seconds.
func replaceJSON(groups []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.Float64Value(a.Value.Duration().Seconds())
		return a
	}
	return replaceText(groups, a)
}

// lsnText returns the X/Y form of an attribute holding an LSN: a named
// unsigned integer type with a String method (wal.LSN, pglogrepl.LSN; the
// JSON handler would write its number), or a bare unsigned integer under
// a key naming an LSN ("lsn", "…_lsn").
func lsnText(a slog.Attr) (string, bool) {
	v := a.Value
	switch v.Kind() {
	case slog.KindUint64:
		if a.Key == "lsn" || strings.HasSuffix(a.Key, "_lsn") {
			return formatLSN(v.Uint64()), true
		}
	case slog.KindAny:
		x := v.Any()
		if _, isDur := x.(time.Duration); isDur {
			return "", false
		}
		s, ok := x.(fmt.Stringer)
		if !ok {
			return "", false
		}
		if k := reflect.TypeOf(x).Kind(); k != reflect.Uint64 {
			return "", false
		}
		if a.Key == "lsn" || strings.HasSuffix(a.Key, "_lsn") || strings.Contains(reflect.TypeOf(x).Name(), "LSN") {
			return s.String(), true
		}
	}
	return "", false
}

// formatLSN is PostgreSQL's %X/%X form of an LSN.
func formatLSN(l uint64) string {
	return fmt.Sprintf("%X/%X", l>>32, uint32(l))
}
