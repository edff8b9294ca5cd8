package sqlfront_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sidecar-dev/sidecar/sqlfront"
)

// connectMode connects pgx with a default query execution mode.
func connectMode(t *testing.T, url string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func TestProtocol(t *testing.T) {
	r := historyRig(t)
	ctx := context.Background()

	t.Run("pgx exec modes", func(t *testing.T) {
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
			pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
			conn := connectMode(t, r.sqlURL, mode)
			for i := 0; i < 3; i++ { // past any prepare threshold
				var name string
				var bal float64
				if err := conn.QueryRow(ctx, "SELECT name, balance::float8 FROM accounts WHERE id = $1", 3).Scan(&name, &bal); err != nil || name != "n3" || bal != 3 {
					t.Errorf("mode %v: %q %v %v", mode, name, bal, err)
				}
				var n int64
				if err := conn.QueryRow(ctx, "SELECT count(*) FROM accounts WHERE name LIKE $1 AND id < $2", "n1%", int64(20)).Scan(&n); err != nil || n != 10 {
					t.Errorf("mode %v: like count %d %v", mode, n, err)
				}
			}
			conn.Close(ctx)
		}
	})

	t.Run("errors", func(t *testing.T) {
		conn, err := pgconn.Connect(ctx, r.sqlURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		for _, c := range []struct{ sql, code, in string }{
			{"INSERT INTO accounts VALUES (1000, 'x', 1)", "25006", "cannot execute INSERT in a read-only transaction"},
			{"UPDATE accounts SET name = 'x'", "25006", "UPDATE"},
			{"CREATE TABLE t (x int)", "25006", "CREATE TABLE"},
			{"SELECT * FROM nosuch", "42P01", "relation \"nosuch\" does not exist"},
			// Refused by the flat planner and by sql/exec (vexec.go): the
			// refusal names what is missing (DISTINCT in a window
			// function, which PostgreSQL refuses too; not UNION).
			{"SELECT count(DISTINCT id) OVER () FROM accounts UNION SELECT 1", "0A000", "window"},
			{"SELECT count(DISTINCT id) OVER () FROM accounts", "0A000", "window"},
			{"WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL (WITH RECURSIVE z AS (SELECT * FROM x) SELECT n + 1 FROM z WHERE n < 3)) SELECT * FROM x", "0A000", "recursive term"},
			{"SELECT FROM WHERE", "42601", "syntax error"},
			{"SELECT * FROM accounts AS OF 'nosuch'", "22023", "nosuch"},
		} {
			_, err := conn.Exec(ctx, c.sql).ReadAll()
			var pe *pgconn.PgError
			if !asPgErr(err, &pe) || pe.Code != c.code || !strings.Contains(pe.Message, c.in) {
				t.Errorf("%s: want %s containing %q, got %v", c.sql, c.code, c.in, err)
				continue
			}
			if c.code == "42P01" && !strings.Contains(pe.Hint, "public.accounts") {
				t.Errorf("%s: hint should list the followed tables: %q", c.sql, pe.Hint)
			}
			if c.code == "0A000" && (pe.Hint == "" || pe.Position == 0) {
				t.Errorf("%s: 0A000 needs a hint and a position: %+v", c.sql, pe)
			}
		}
		// The caret of an error after AS OF stays where the user wrote it.
		q := "SELECT nosuch FROM accounts AS OF 'HEAD' WHERE id = 1"
		_, err = conn.Exec(ctx, "SELECT * FROM accounts AS OF 'HEAD' WHERE nosuch = 1").ReadAll()
		var pe *pgconn.PgError
		if !asPgErr(err, &pe) || pe.Code != "42703" || pe.Position != int32(strings.Index("SELECT * FROM accounts AS OF 'HEAD' WHERE nosuch = 1", "nosuch")+1) {
			t.Errorf("caret after AS OF: %+v", err)
		}
		_ = q
	})

	t.Run("transaction status", func(t *testing.T) {
		conn, err := pgconn.Connect(ctx, r.sqlURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		step := func(sql string, want byte) {
			t.Helper()
			conn.Exec(ctx, sql).ReadAll()
			if got := conn.TxStatus(); got != want {
				t.Errorf("after %s: status %c, want %c", sql, got, want)
			}
		}
		step("SELECT 1", 'I')
		step("BEGIN", 'T')
		step("SELECT count(*) FROM accounts", 'T')
		step("SELECT nosuch FROM accounts", 'E')
		_, err = conn.Exec(ctx, "SELECT 1").ReadAll()
		if !strings.Contains(errString(err), "current transaction is aborted") {
			t.Errorf("in a failed transaction: %v", err)
		}
		step("COMMIT", 'I')
		step("START TRANSACTION READ ONLY", 'T')
		step("ROLLBACK", 'I')
		if _, err := conn.Exec(ctx, "SET TRANSACTION READ WRITE").ReadAll(); !strings.Contains(errString(err), "read-only") {
			t.Errorf("SET TRANSACTION READ WRITE: %v", err)
		}
		p := conn.ParameterStatus("default_transaction_read_only")
		v := conn.ParameterStatus("server_version")
		if p != "on" || v != pg.ServerVersionString() { // the followed server's
			t.Errorf("parameters: default_transaction_read_only=%q server_version=%q", p, v)
		}
	})

	t.Run("portal suspension", func(t *testing.T) {
		conn, err := pgconn.Connect(ctx, r.sqlURL)
		if err != nil {
			t.Fatal(err)
		}
		hc, err := conn.Hijack()
		if err != nil {
			t.Fatal(err)
		}
		defer hc.Conn.Close()
		fe := hc.Frontend
		fe.Send(&pgproto3.Parse{Name: "s", Query: "SELECT id FROM accounts WHERE id <= $1 ORDER BY id"})
		fe.Send(&pgproto3.Describe{ObjectType: 'S', Name: "s"})
		fe.Send(&pgproto3.Bind{PreparedStatement: "s", Parameters: [][]byte{[]byte("6")}})
		fe.Send(&pgproto3.Execute{MaxRows: 2})
		fe.Send(&pgproto3.Execute{MaxRows: 2})
		fe.Send(&pgproto3.Execute{MaxRows: 2})
		fe.Send(&pgproto3.Sync{})
		fe.Send(&pgproto3.Parse{Name: "bad", Query: "SELECT nosuch"})
		fe.Send(&pgproto3.Bind{PreparedStatement: "bad"})
		fe.Send(&pgproto3.Execute{})
		fe.Send(&pgproto3.Sync{})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		var got []string
		for rfq := 0; rfq < 2; {
			m, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			switch x := m.(type) {
			case *pgproto3.ParameterDescription:
				got = append(got, "params:"+itoa(len(x.ParameterOIDs))+":"+itoa(int(x.ParameterOIDs[0])))
			case *pgproto3.DataRow:
				got = append(got, string(x.Values[0]))
			case *pgproto3.PortalSuspended:
				got = append(got, "suspended")
			case *pgproto3.CommandComplete:
				got = append(got, string(x.CommandTag))
			case *pgproto3.ErrorResponse:
				got = append(got, "error:"+x.Code)
			case *pgproto3.ReadyForQuery:
				got = append(got, "ready")
				rfq++
			}
		}
		want := "params:1:23 1 3 suspended 4 5 suspended 6 SELECT 1 ready error:42703 ready" // id 2 was deleted
		if strings.Join(got, " ") != want {
			t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
		}
	})

	t.Run("connection limit and statement timeout", func(t *testing.T) {
		addr := r.serve(t, sqlfront.Options{MaxConnections: 1, StatementTimeout: time.Nanosecond})
		u := "postgres://app@" + addr + "/app?sslmode=disable"
		c1, err := pgconn.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer c1.Close(ctx)
		_, err = pgconn.Connect(ctx, u)
		if !strings.Contains(errString(err), "53300") {
			t.Errorf("second connection: %v", err)
		}
		_, err = c1.Exec(ctx, "SELECT count(*) FROM accounts").ReadAll()
		if !strings.Contains(errString(err), "statement timeout") {
			t.Errorf("timeout: %v", err)
		}
	})

	t.Run("scram and tls", func(t *testing.T) {
		dir := t.TempDir()
		users := filepath.Join(dir, "users")
		os.WriteFile(users, []byte("# test\nalice:s3cret\n"), 0o600)
		us, err := sqlfront.LoadUsers(users)
		if err != nil {
			t.Fatal(err)
		}
		addr := r.serve(t, sqlfront.Options{Users: us, TLS: selfSigned(t)})
		base := "postgres://alice:%s@" + addr + "/app?sslmode="
		conn, err := pgx.Connect(ctx, strings.Replace(base, "%s", "s3cret", 1)+"require")
		if err != nil {
			t.Fatalf("good password over TLS: %v", err)
		}
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM accounts").Scan(&n); err != nil || n != 50 {
			t.Errorf("count over TLS: %d %v", n, err)
		}
		conn.Close(ctx)
		if c, err := pgx.Connect(ctx, strings.Replace(base, "%s", "s3cret", 1)+"disable"); err != nil {
			t.Errorf("SCRAM without TLS: %v", err)
		} else {
			c.Close(ctx)
		}
		_, err = pgx.Connect(ctx, strings.Replace(base, "%s", "wrong", 1)+"disable")
		if !strings.Contains(errString(err), "28P01") {
			t.Errorf("wrong password: %v", err)
		}
		_, err = pgx.Connect(ctx, strings.Replace(strings.Replace(base, "alice", "bob", 1), "%s", "s3cret", 1)+"disable")
		if !strings.Contains(errString(err), "28P01") {
			t.Errorf("unknown user: %v", err)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	if pe, ok := err.(*pgconn.PgError); ok {
		return pe.Code + " " + pe.Message
	}
	return err.Error()
}

func itoa(i int) string { return fmtSprint(i) }

// selfSigned is a TLS config with a throwaway certificate.
func selfSigned(t *testing.T) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// TestShutdownClosesStalledConnections: a client that connected and
// sent nothing (no startup yet) does not hold up shutdown.
func TestShutdownClosesStalledConnections(t *testing.T) {
	srv, err := sqlfront.Listen(sqlfront.Options{Addr: "127.0.0.1:0", Source: &sqlfront.HistorySource{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	c, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte{0, 0}) // half a startup packet
	// Make sure the connection was accepted before shutting down: a
	// second client completes a startup and gets its answer.
	if conn, err := pgconn.Connect(context.Background(), "postgres://x@"+srv.Addr()+"/x?sslmode=disable"); err == nil {
		conn.Close(context.Background())
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return within 10 s of shutdown with a stalled connection open")
	}
}
