package store

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// LevelBadgerDebug is the slog level of Badger's Debugf output: below
// slog.LevelDebug, because Badger's debug lines (per-table compaction traces)
// drown everything else even when our own debug logs are wanted.
const LevelBadgerDebug = slog.LevelDebug - 4

// badgerLogger adapts a *slog.Logger to badger.Logger. Badger logs routine
// events (memtable flushes, compactions, replay) at Info; to us they are
// chatter, so Infof goes to Debug. Warnings and errors keep their level.
type badgerLogger struct {
	l *slog.Logger
}

func (b badgerLogger) log(level slog.Level, format string, args ...any) {
	ctx := context.Background()
	if !b.l.Enabled(ctx, level) {
		return
	}
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	b.l.Log(ctx, level, msg)
}

func (b badgerLogger) Errorf(format string, args ...any)   { b.log(slog.LevelError, format, args...) }
func (b badgerLogger) Warningf(format string, args ...any) { b.log(slog.LevelWarn, format, args...) }
func (b badgerLogger) Infof(format string, args ...any)    { b.log(slog.LevelDebug, format, args...) }
func (b badgerLogger) Debugf(format string, args ...any)   { b.log(LevelBadgerDebug, format, args...) }
