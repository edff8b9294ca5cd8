// Package consumertest holds a model of a derived consumer of the mirror
// (mirror.Consumer): a sorted map per table, made durable to a file at
// the position it reached. Tests run it beside the mirror, kill both, and
// check that it equals the mirror's trees at its position and, after
// catch-up, at the head.
package consumertest

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/sidecar-dev/sidecar/mirror"
	"github.com/sidecar-dev/sidecar/prolly"
	"github.com/sidecar-dev/sidecar/wal"
)

// Model is a mirror.Consumer that keeps every table as a map of key to
// value and saves itself whole (write, fsync, rename) to Path after a
// batch when Every has passed since the last save. It checks the order
// promises of the interface as it applies: LSNs never decrease, tables
// come sorted, keys in order.
type Model struct {
	Path  string
	Every time.Duration
	// Slow, if set, is slept in every Apply (a consumer slower than
	// apply, to overflow its queue).
	Slow time.Duration

	mu       sync.Mutex
	state    state
	durable  mirror.Position
	lastSave time.Time
	batches  map[mirror.BatchKind]int
}

// state is the saved form.
type state struct {
	LSN      uint64
	CopiedAt map[string]uint64
	Tables   map[string]map[string]string
}

// Load returns the model saved at path, or an empty one when there is no
// file.
func Load(path string, every time.Duration) (*Model, error) {
	m := &Model{Path: path, Every: every, state: state{CopiedAt: map[string]uint64{}, Tables: map[string]map[string]string{}},
		batches: map[mirror.BatchKind]int{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&m.state); err != nil {
		return nil, fmt.Errorf("load model %s: %w", path, err)
	}
	if m.state.CopiedAt == nil {
		m.state.CopiedAt = map[string]uint64{}
	}
	if m.state.Tables == nil {
		m.state.Tables = map[string]map[string]string{}
	}
	m.durable = m.state.position()
	return m, nil
}

func (s *state) position() mirror.Position {
	p := mirror.Position{LSN: wal.LSN(s.LSN), CopiedAt: map[string]wal.LSN{}}
	for t, c := range s.CopiedAt {
		p.CopiedAt[t] = wal.LSN(c)
	}
	return p
}

// Durable implements mirror.Consumer.
func (m *Model) Durable() mirror.Position {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.durable
}

// Apply implements mirror.Consumer.
func (m *Model) Apply(ctx context.Context, b *mirror.Batch) error {
	if m.Slow > 0 {
		time.Sleep(m.Slow)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if uint64(b.LSN) < m.state.LSN {
		return fmt.Errorf("model: %s batch at %s after %s", b.Kind, b.LSN, wal.LSN(m.state.LSN))
	}
	if (b.Kind == mirror.BatchCommit) != (b.Version != nil) || (b.Version != nil && b.Version.EndLSN != b.LSN) {
		return fmt.Errorf("model: %s batch at %s with version %v", b.Kind, b.LSN, b.Version)
	}
	for i := range b.Tables {
		tb := &b.Tables[i]
		if i > 0 && b.Tables[i-1].Table >= tb.Table {
			return fmt.Errorf("model: batch at %s: table %s after %s", b.LSN, tb.Table, b.Tables[i-1].Table)
		}
		rows := m.state.Tables[tb.Table]
		if rows == nil || tb.Reset {
			rows = map[string]string{}
			m.state.Tables[tb.Table] = rows
		}
		var prev []byte
		first := true
		err := tb.Edits(ctx, func(e prolly.Edit) error {
			if !first && bytes.Compare(prev, e.Key) >= 0 {
				return fmt.Errorf("model: batch at %s table %s: key %x after %x", b.LSN, tb.Table, e.Key, prev)
			}
			first, prev = false, append(prev[:0], e.Key...)
			if e.Delete {
				delete(rows, string(e.Key))
			} else {
				rows[string(e.Key)] = string(e.Value)
			}
			return nil
		})
		if err != nil {
			return err
		}
		m.state.CopiedAt[tb.Table] = uint64(tb.CopiedAt)
	}
	m.state.LSN = uint64(b.LSN)
	m.batches[b.Kind]++
	if time.Since(m.lastSave) >= m.Every {
		return m.saveLocked()
	}
	return nil
}

// Save writes the model to Path now.
func (m *Model) Save() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.saveLocked()
}

func (m *Model) saveLocked() error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&m.state); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	tmp := m.Path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("save model: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("save model: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if err := os.Rename(tmp, m.Path); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	if d, err := os.Open(filepath.Dir(m.Path)); err == nil {
		d.Sync()
		d.Close()
	}
	m.lastSave = time.Now()
	m.durable = m.state.position()
	return nil
}

// Batches returns how many batches of each kind were applied since Load.
func (m *Model) Batches() map[mirror.BatchKind]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.batches)
}

// LSN returns the position the model's tables are at (applied, not
// necessarily saved).
func (m *Model) LSN() wal.LSN {
	m.mu.Lock()
	defer m.mu.Unlock()
	return wal.LSN(m.state.LSN)
}

// Result is what Compare checked.
type Result struct {
	LSN wal.LSN
	// Tables compared row by row, and Skipped: tables the mirror copied
	// again after the model's position (it gets them whole on catch-up).
	Tables, Rows int
	Skipped      []string
}

// Compare checks the model against the mirror's trees at the model's
// LSN: every table the model holds must equal TreeAt(table, LSN), except
// a table whose copy the mirror replaced since (its CopiedAt differs).
// Tables the mirror has and the model lacks must then be empty or
// skipped the same way.
func (m *Model) Compare(ctx context.Context, mr *mirror.Mirror) (Result, error) {
	m.mu.Lock()
	st := state{LSN: m.state.LSN, CopiedAt: maps.Clone(m.state.CopiedAt), Tables: map[string]map[string]string{}}
	for t, rows := range m.state.Tables {
		st.Tables[t] = maps.Clone(rows)
	}
	m.mu.Unlock()
	res := Result{LSN: wal.LSN(st.LSN)}
	for _, ti := range mr.Tables() {
		c, ok := st.CopiedAt[ti.Name]
		if !ok || wal.LSN(c) != ti.CopiedAt {
			res.Skipped = append(res.Skipped, ti.Name)
			continue
		}
		tr, err := mr.TreeAt(ctx, ti.Name, res.LSN)
		if err != nil {
			return res, fmt.Errorf("compare %s at %s: %w", ti.Name, res.LSN, err)
		}
		cur, err := tr.Scan(ctx, nil, nil)
		if err != nil {
			return res, err
		}
		want := st.Tables[ti.Name]
		n := 0
		for cur.Next() {
			n++
			v, ok := want[string(cur.Key())]
			if !ok {
				return res, fmt.Errorf("%s at %s: the model lacks key %x", ti.Name, res.LSN, cur.Key())
			}
			if v != string(cur.Value()) {
				return res, fmt.Errorf("%s at %s: key %x: model %x, tree %x", ti.Name, res.LSN, cur.Key(), v, cur.Value())
			}
		}
		if err := cur.Err(); err != nil {
			return res, err
		}
		if n != len(want) {
			extra := ""
			for k := range want {
				if _, ok, _ := tr.Engine().Get(ctx, tr.Root, []byte(k)); !ok && extra == "" {
					extra = fmt.Sprintf("%x", k)
				}
			}
			return res, fmt.Errorf("%s at %s: model %d rows, tree %d (e.g. key %s only in the model)", ti.Name, res.LSN, len(want), n, extra)
		}
		res.Tables++
		res.Rows += n
	}
	sort.Strings(res.Skipped)
	return res, nil
}
