package config

import (
	"fmt"
	"strings"

	"github.com/sidecar-dev/sidecar/membudget"
)

// Memory is the daemon's one memory budget (issue 24 item 1): memory.limit
// for the whole process (the Go runtime's memory limit, GOMEMLIMIT, is set
// to it), split into parts each enforced where the memory is held. A part
// left "auto" takes its share of the limit (what the parts set explicitly
// leave, in proportion to autoShares); the parts must fit in the limit.
// heap.memory (the in-memory HEAD's decoded pages) is one of the parts.
type Memory struct {
	// Limit is the budget of the whole process: "auto" (3/4 of the
	// cgroup's memory limit, keeping at least 192MiB outside, or 1/4 of
	// the machine's RAM without one) or a size.
	Limit string `mapstructure:"limit"`
	// NodeCache bounds the store's cache of decoded tree nodes.
	NodeCache string `mapstructure:"node_cache"`
	// Badger bounds Badger's memtables (and the rest of its in-memory
	// state: table indexes and bloom filters are read from the mapped
	// files, its block and index caches are off).
	Badger string `mapstructure:"badger"`
	// Query bounds the SQL engine's working memory, summed over every
	// running statement (hash joins, sorts, DISTINCT, grouping): a
	// statement that would pass it fails with SQLSTATE 53200.
	Query string `mapstructure:"query"`
	// Ingest bounds the apply path's buffers: the node store's writes
	// waiting for the background writer (half), and the initial copy's
	// rows before they are in the tree (half: mirror.Options.CopyMemory).
	Ingest string `mapstructure:"ingest"`

	parts   Parts
	machine membudget.Machine
}

// Parts is the resolved budget, in bytes (valid after Load).
type Parts struct {
	Limit, Heap, NodeCache, Badger, Query, Ingest uint64
	// LimitFrom says how Limit was chosen ("memory.limit", or auto and
	// the machine's figure it came from).
	LimitFrom string
}

// Budget is the resolved memory budget (valid after Load).
func (m Memory) Budget() Parts { return m.parts }

// autoShares is each part's share of memory.limit, in percent, when left
// "auto"; the rest (5 %) is headroom for what no part counts (goroutine
// stacks, the wire front end's messages, the copy's decoding).
var autoShares = []struct {
	key   string
	share uint64
	min   uint64
}{
	{"heap.memory", 35, 4 << 20},
	{"memory.node_cache", 15, 4 << 20},
	{"memory.badger", 10, 32 << 20},
	{"memory.query", 25, 8 << 20},
	{"memory.ingest", 10, 4 << 20},
}

// headroomShare is the percentage of memory.limit no part takes.
const headroomShare = 5

// minLimit is the least memory.limit: every part at its least, and
// memory.limit "auto" never chooses less.
const minLimit = 256 << 20

// autoLimit is memory.limit "auto" on machine m.
func autoLimit(m membudget.Machine) uint64 {
	if !m.Cgroup {
		return max(m.Bytes/4, minLimit)
	}
	outside := max(m.Bytes/4, min(192<<20, m.Bytes/2))
	return max(m.Bytes-outside, minLimit)
}

// resolveMemory checks memory.* and heap.memory and splits the limit.
func (c *Config) resolveMemory(add func(key, format string, args ...any), machine func() (membudget.Machine, error)) {
	mem := &c.Memory
	raw := map[string]string{"heap.memory": c.Heap.Memory, "memory.node_cache": mem.NodeCache,
		"memory.badger": mem.Badger, "memory.query": mem.Query, "memory.ingest": mem.Ingest}
	var p Parts
	if strings.TrimSpace(mem.Limit) == "auto" {
		m, err := machine()
		if err != nil {
			add("memory.limit", "auto: %v; set a size", err)
			return
		}
		mem.machine = m
		p.Limit = autoLimit(m)
		p.LimitFrom = fmt.Sprintf("auto: %s of %s (%s)", membudget.FormatBytes(int64(p.Limit)), membudget.FormatBytes(int64(m.Bytes)), m.From)
	} else {
		n, err := ParseBytes(mem.Limit)
		switch {
		case err != nil:
			add("memory.limit", "%v, or auto", err)
			return
		case n < minLimit:
			add("memory.limit", "%s is below 256MiB, the least the parts need together", mem.Limit)
			return
		case n > 1<<50:
			add("memory.limit", "%s is too large", mem.Limit)
			return
		}
		p.Limit, p.LimitFrom = n, "memory.limit"
		if m, err := machine(); err == nil && n > m.Bytes {
			mem.machine = m
			c.Warnings = append(c.Warnings, fmt.Sprintf("memory.limit: %s is more than the %s this process may use (%s): the kernel, not the budget, will stop it",
				mem.Limit, membudget.FormatBytes(int64(m.Bytes)), m.From))
		}
	}
	set := map[string]uint64{}
	var explicit, autoShare uint64
	bad := false
	for _, s := range autoShares {
		v := strings.TrimSpace(raw[s.key])
		if v == "auto" {
			autoShare += s.share
			continue
		}
		n, err := ParseBytes(v)
		switch {
		case err != nil:
			add(s.key, "%v, or auto (a share of memory.limit)", err)
			bad = true
		case n == 0:
			add(s.key, "0 is no bound, and every part of the memory budget must have one: set a size, or auto (a share of memory.limit)")
			bad = true
		default:
			set[s.key] = n
			explicit += n
		}
	}
	if bad {
		return
	}
	// Auto parts share what the explicit ones leave, in proportion to
	// their shares, keeping the headroom's share of it unassigned (never
	// more than their share of the limit, never less than their least).
	left := p.Limit - min(explicit, p.Limit)
	var sum uint64
	var terms []string
	first := ""
	for _, s := range autoShares {
		n, ok := set[s.key]
		if !ok {
			n = min(p.Limit/100*s.share, left/(autoShare+headroomShare)*s.share)
			n = max(n, s.min)
		}
		sum += n
		if _, ok := set[s.key]; ok {
			terms = append(terms, fmt.Sprintf("%s %s", s.key, membudget.FormatBytes(int64(n))))
			if first == "" {
				first = s.key
			}
		} else {
			terms = append(terms, fmt.Sprintf("%s auto %s", s.key, membudget.FormatBytes(int64(n))))
		}
		switch s.key {
		case "heap.memory":
			p.Heap = n
		case "memory.node_cache":
			p.NodeCache = n
		case "memory.badger":
			p.Badger = n
		case "memory.query":
			p.Query = n
		case "memory.ingest":
			p.Ingest = n
		}
	}
	if sum > p.Limit {
		key := "memory.limit"
		if p.LimitFrom != "memory.limit" && first != "" {
			key = first
		}
		add(key, "the parts of the memory budget (%s) add up to %s, more than memory.limit %s (%s): lower them or raise memory.limit",
			strings.Join(terms, " + "), membudget.FormatBytes(int64(sum)), membudget.FormatBytes(int64(p.Limit)), p.LimitFrom)
		return
	}
	if p.Badger < 32<<20 {
		add("memory.badger", "%s is below 32MiB, Badger's least (three 8MiB memtables)", membudget.FormatBytes(int64(p.Badger)))
		return
	}
	mem.parts = p
	c.Heap.memory = p.Heap
}
