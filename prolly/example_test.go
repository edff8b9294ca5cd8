package prolly_test

import (
	"context"
	"fmt"

	"github.com/sidecar-dev/sidecar/prolly"
)

// Build a version, change it, and list what changed.
func Example() {
	ctx := context.Background()
	e := prolly.NewDefaultEngine(prolly.NewMemStore(prolly.MemStoreOptions{}))

	b := e.NewBuilder(ctx)
	for i := 0; i < 1000; i++ {
		if err := b.Add([]byte(fmt.Sprintf("k%04d", i)), []byte("v0")); err != nil {
			panic(err)
		}
	}
	v1, err := b.Finish()
	if err != nil {
		panic(err)
	}
	v2, err := e.Mutate(ctx, v1, []prolly.Edit{
		{Key: []byte("k0007"), Delete: true},
		{Key: []byte("k0500"), Value: []byte("v1")},
		{Key: []byte("k9999"), Value: []byte("new")},
	})
	if err != nil {
		panic(err)
	}
	d, err := e.Diff(ctx, v1, v2, prolly.DiffOptions{})
	if err != nil {
		panic(err)
	}
	for d.Next() {
		en := d.Entry()
		fmt.Printf("%s %s %q -> %q\n", en.Kind, en.Key, en.From, en.To)
	}
	n, _ := e.Count(ctx, v2)
	fmt.Println(n, "rows")
	// Output:
	// removed k0007 "v0" -> ""
	// changed k0500 "v0" -> "v1"
	// added k9999 "" -> "new"
	// 1000 rows
}
