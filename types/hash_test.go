package types_test

import "hash/maphash"

func maphashSeed() maphash.Seed { return maphash.MakeSeed() }
