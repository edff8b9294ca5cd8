package torture

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-dev/sidecar/config"
	"github.com/sidecar-dev/sidecar/daemon"
	"github.com/sidecar-dev/sidecar/internal/pgtest"
	"github.com/sidecar-dev/sidecar/internal/testkit/daemontest"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// serverCert issues a certificate for 127.0.0.1 and localhost.
func (ca *testCA) serverCert(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// TestTLSVerifyFull follows a server with ssl=on whose certificate a CA
// made here signed: with sslmode=verify-full and that CA the sidecar
// copies, streams and verifies equal; with another CA it refuses to start
// with a certificate error and connects to nothing.
func TestTLSVerifyFull(t *testing.T) {
	dir, err := os.MkdirTemp("", "torture-tls-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil { // the server's user reads the key here
		t.Fatal(err)
	}
	ca, other := newCA(t, "torture CA"), newCA(t, "someone else's CA")
	certPEM, keyPEM := ca.serverCert(t)
	files := map[string][]byte{"server.crt": certPEM, "server.key": keyPEM, "ca.pem": ca.pem, "other.pem": other.pem}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 { // pgtest runs the server as "postgres": it must own its key
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("running as root without a postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, name := range []string{"server.crt", "server.key"} {
			if err := os.Chown(filepath.Join(dir, name), uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, err := pgtest.Start(context.Background(), pgtest.Options{Settings: map[string]string{
		"ssl": "on", "ssl_cert_file": filepath.Join(dir, "server.crt"), "ssl_key_file": filepath.Join(dir, "server.key"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop() })
	plain := c.NewDB(t)
	exec(t, plain, `CREATE TABLE counter (id int PRIMARY KEY, n bigint NOT NULL)`, `INSERT INTO counter VALUES (1, 0)`)
	tlsURL := func(root string) string {
		return strings.Replace(plain, "sslmode=disable", "sslmode=verify-full&sslrootcert="+filepath.Join(dir, root), 1)
	}

	run := func(url string) (*daemontest.Daemon, error) {
		cfg := tlsConfig(t, url)
		return daemontest.TryStart(daemontest.Options{PG: plain, Run: func(ctx context.Context, ready func(string)) error {
			return daemon.Run(ctx, daemon.Options{Config: cfg, OnReady: ready})
		}})
	}

	// Another CA: refused before anything is copied.
	d, refused := run(tlsURL("other.pem"))
	if d != nil {
		var ok bool
		if refused, ok = d.Exited(60 * time.Second); !ok {
			d.Stop()
			t.Fatal("with another CA the sidecar did not fail within 60 s")
		}
	}
	if refused == nil || !strings.Contains(refused.Error(), "certificate") {
		t.Fatalf("with another CA: %v, want a certificate error", refused)
	}
	t.Logf("another CA refused as it must: %.300s", refused)

	d, err = run(tlsURL("ca.pem"))
	if err != nil {
		t.Fatalf("with the right CA the sidecar did not start: %v", err)
	}
	defer d.Stop()
	for range 3 {
		d.Marker(t, "UPDATE counter SET n = n + 1 WHERE id = 1")
	}
	var ssl bool
	if err := queryRow(plain, "SELECT bool_and(ssl) FROM pg_stat_ssl JOIN pg_stat_replication USING (pid)", nil, &ssl); err != nil || !ssl {
		t.Errorf("the walsender's connection is not TLS: %v %v", ssl, err)
	}
	if v := verifyThroughAPI(t, d.API); v != "equal" {
		t.Errorf("verify over TLS: %s", v)
	}
	if err := d.Stop(); err != nil {
		t.Fatalf("over TLS: %v", err)
	}
}

func tlsConfig(t *testing.T, url string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "sidecar.yaml")
	body := "postgres:\n  url: '" + url + "'\ntables: [public.counter]\ndata_dir: " + filepath.Join(dir, "data") +
		"\nlisten: 127.0.0.1:0\nsql:\n  listen: \"\"\nstorage:\n  min_free: 64MiB\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{File: file, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
