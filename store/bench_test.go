package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/sidecar-dev/sidecar/addr"
)

// benchNodes returns n leaves (~3.9 KiB each) and their addresses.
func benchNodes(n int, text bool) ([]addr.Hash, [][]byte) {
	gen := newLeafGen(42, text)
	hs := make([]addr.Hash, n)
	ds := make([][]byte, n)
	for i := range n {
		ds[i] = gen.leaf()
		hs[i] = addr.Of(ds[i])
	}
	return hs, ds
}

// fill puts and flushes nodes into a fresh store.
func fill(b *testing.B, s *NodeStore[*testNode], hs []addr.Hash, ds [][]byte) {
	b.Helper()
	ctx := context.Background()
	for i := range hs {
		if err := s.Put(ctx, hs[i], ds[i], &testNode{data: ds[i]}); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// storeLayouts are the Badger layouts compared by the benchmarks: nodes in
// the value log (the default) or inline in the LSM, and inline with Badger's
// own block compression on top of ours.
var storeLayouts = []struct {
	name string
	opts Options
}{
	{"vlog", Options{}},
	{"lsm", Options{ValueThreshold: 1 << 20}},
	{"lsm+snappy", Options{ValueThreshold: 1 << 20, BadgerTune: func(o badger.Options) badger.Options {
		return o.WithCompression(options.Snappy).WithBlockCacheSize(256 << 20)
	}}},
}

func BenchmarkGetWarm(b *testing.B) {
	db := openTest(b, Options{InMemory: true})
	s := NewNodeStore(db, testCodec{})
	hs, ds := benchNodes(1000, false)
	fill(b, s, hs, ds)
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if _, err := s.Get(ctx, hs[i%len(hs)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			i := rand.IntN(len(hs))
			for pb.Next() {
				if _, err := s.Get(ctx, hs[i%len(hs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	})
}

// coldStore writes n nodes with opts, reopens the DB (memtables flushed to
// tables) and returns a store whose node cache is disabled, so every Get
// reads, verifies and decodes from Badger. The OS page cache stays warm.
func coldStore(b *testing.B, opts Options, n int) (*NodeStore[*testNode], []addr.Hash) {
	b.Helper()
	opts.Dir = b.TempDir()
	db, err := Open(opts)
	if err != nil {
		b.Fatal(err)
	}
	s := NewNodeStore(db, testCodec{})
	hs, ds := benchNodes(n, false)
	fill(b, s, hs, ds)
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	opts.CacheBytes = -1
	db = openTest(b, opts)
	return NewNodeStore(db, testCodec{}), hs
}

func BenchmarkGetCold(b *testing.B) {
	for _, l := range storeLayouts {
		b.Run(l.name, func(b *testing.B) {
			s, hs := coldStore(b, l.opts, 20000)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				if _, err := s.Get(ctx, hs[rng.IntN(len(hs))]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGetMany(b *testing.B) {
	s, hs := coldStore(b, Options{}, 20000)
	ctx := context.Background()
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("cold/%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			req := make([]addr.Hash, n)
			for b.Loop() {
				for i := range req {
					req[i] = hs[rng.IntN(len(hs))]
				}
				if _, err := s.GetMany(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}

// BenchmarkPutFlush writes 20,000 leaves (~78 MiB) per op into a fresh DB,
// Flush and Sync included: MB/s is of raw node bytes.
func BenchmarkPutFlush(b *testing.B) {
	const n = 20000
	hs, ds := benchNodes(n, false)
	raw := 0
	for _, d := range ds {
		raw += len(d)
	}
	type variant struct {
		name string
		opts Options
	}
	var variants []variant
	for _, l := range storeLayouts {
		variants = append(variants, variant{l.name + "/s2", l.opts})
	}
	zstdOpts := Options{Compression: CompressionZstd}
	noneOpts := Options{Compression: CompressionNone}
	variants = append(variants, variant{"vlog/zstd", zstdOpts}, variant{"vlog/none", noneOpts},
		variant{"vlog/s2/verify", Options{VerifyPuts: true}})
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(raw))
			for b.Loop() {
				b.StopTimer()
				opts := v.opts
				opts.Dir = b.TempDir()
				db, err := Open(opts)
				if err != nil {
					b.Fatal(err)
				}
				s := NewNodeStore(db, testCodec{})
				b.StartTimer()
				fill(b, s, hs, ds)
				if err := db.Sync(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}
