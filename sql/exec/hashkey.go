package exec

import (
	"hash/maphash"
	"math"
	"math/big"
	"strings"

	"github.com/sidecar-dev/sidecar/sql/plan"
	"github.com/sidecar-dev/sidecar/types"
)

// valueHasher hashes non-NULL values of known types for the executor's
// hash tables (hash join, aggregation, DISTINCT, set operations)
// consistently with types.Compare's equality, like types.Hash, but
// without allocating for the types the hot paths meet: integers, dates,
// timestamps, floats, text, bpchar and numerics whose digits fit an
// int64 are hashed from their bits. Every value of one table goes
// through the same hasher, so a fast-path hash never meets a
// types.Hash one for values Compare finds equal: each type is hashed
// one way only.
type valueHasher struct {
	seed maphash.Seed
	salt uint64
}

func newValueHasher() valueHasher {
	s := maphash.MakeSeed()
	return valueHasher{seed: s, salt: maphash.String(s, "sidecar")}
}

// mix64 is a 64-bit finalizer (murmur3's fmix64) over x salted.
func (h valueHasher) mix64(x uint64) uint64 { return intMix(x ^ h.salt) }

// intMix is murmur3's fmix64: x's bits spread over all 64.
func intMix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// hash is v's hash (v non-NULL, of type oid).
func (h valueHasher) hash(oid plan.OID, v types.Value) uint64 {
	switch x := v.(type) {
	case int64:
		return h.mix64(uint64(x))
	case types.DateVal:
		return h.mix64(uint64(int64(x)))
	case types.TimestampVal:
		return h.mix64(uint64(int64(x)))
	case types.TimeVal:
		return h.mix64(uint64(int64(x)))
	case bool:
		if x {
			return h.mix64(1)
		}
		return h.mix64(0)
	case float64:
		switch {
		case math.IsNaN(x):
			return h.mix64(0x7ff8000000000001)
		case x == 0: // -0 equals 0
			return h.mix64(0)
		}
		return h.mix64(math.Float64bits(x))
	case string:
		if oid == plan.JSONB {
			return types.Hash(h.seed, oid, v) // by value: '1.0' and '1' alike
		}
		if oid == plan.Bpchar {
			x = strings.TrimRight(x, " ")
		}
		return maphash.String(h.seed, x)
	case *types.Decimal:
		return h.decimal(oid, x)
	}
	return types.Hash(h.seed, oid, v)
}

// decimal hashes a numeric by its value: trailing fractional zeros
// stripped (1.5 and 1.50 alike), from an int64 when the stripped digits
// fit one.
func (h valueHasher) decimal(oid plan.OID, d *types.Decimal) uint64 {
	if d.NaN || d.Inf != 0 {
		return types.Hash(h.seed, oid, d)
	}
	s := d.Scale
	if d.V.IsInt64() {
		v := d.V.Int64()
		for s > 0 && v != 0 && v%10 == 0 {
			v, s = v/10, s-1
		}
		if v == 0 {
			s = 0
		}
		return h.mix64(uint64(v)*0x9e3779b97f4a7c15 ^ uint64(int64(s)))
	}
	v := new(big.Int).Set(&d.V)
	ten, q, r := big.NewInt(10), new(big.Int), new(big.Int)
	for s > 0 {
		q.QuoRem(v, ten, r)
		if r.Sign() != 0 {
			break
		}
		v, q, s = q, v, s-1
	}
	if v.IsInt64() { // cannot be 0: a zero's digits fit an int64
		return h.mix64(uint64(v.Int64())*0x9e3779b97f4a7c15 ^ uint64(int64(s)))
	}
	return maphash.String(h.seed, v.String()) ^ uint64(int64(s))
}
