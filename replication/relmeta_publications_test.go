package replication

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// TestReadPublicationsOneSnapshot: a publication flipped between two
// states by transactions that change pg_publication and
// pg_publication_rel together (issue 21) is read as one state or the
// other, never as the publish flags of one and the tables of the other:
// readPublications' statements share one snapshot.
func TestReadPublicationsOneSnapshot(t *testing.T) {
	url := pg.NewDB(t)
	conn := sqlConn(t, url)
	flip := sqlConn(t, url)
	ctx := t.Context()
	mustExec(t, conn, "CREATE TABLE pa (id int PRIMARY KEY)", "CREATE TABLE pb (id int PRIMARY KEY)",
		"CREATE PUBLICATION torn FOR TABLE pa WITH (publish = 'insert')")
	var a, b uint32
	if err := conn.QueryRow(ctx, "SELECT 'pa'::regclass::oid, 'pb'::regclass::oid").Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	version, err := ServerVersionNum(conn.PgConn())
	if err != nil {
		t.Fatal(err)
	}
	// State A: pa, insert only. State B: pb, every action.
	states := [2]string{
		"BEGIN; ALTER PUBLICATION torn SET TABLE pa; ALTER PUBLICATION torn SET (publish = 'insert'); COMMIT",
		"BEGIN; ALTER PUBLICATION torn SET TABLE pb; ALTER PUBLICATION torn SET (publish = 'insert, update, delete, truncate'); COMMIT",
	}
	fctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var flips int
	var flipErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; fctx.Err() == nil; i++ {
			if _, err := flip.Exec(fctx, states[i%2]); err != nil {
				if !errors.Is(fctx.Err(), context.Canceled) {
					flipErr = err
				}
				return
			}
			flips = i + 1
		}
	}()
	defer func() {
		stop()
		wg.Wait()
	}()
	seen := [2]int{}
	for i := 0; i < 400 || seen[0] == 0 || seen[1] == 0; i++ {
		if i == 4000 {
			t.Fatalf("4000 reads saw states %v", seen)
		}
		got, err := readPublications(ctx, conn, version)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || len(got.Publications) != 1 || len(got.Rels) != 1 {
			t.Fatalf("read %d: %+v", i, got)
		}
		p, r := got.Publications[0], got.Rels[0]
		switch {
		case !p.Update && !p.Delete && !p.Truncate && r.RelOID == a:
			seen[0]++
		case p.Update && p.Delete && p.Truncate && r.RelOID == b:
			seen[1]++
		default:
			t.Fatalf("read %d: torn: publication %+v with table %d (pa %d, pb %d)", i, p, r.RelOID, a, b)
		}
	}
	stop()
	wg.Wait()
	if flipErr != nil {
		t.Fatal(flipErr)
	}
	t.Logf("states read %v over %d flips", seen, flips)
}
