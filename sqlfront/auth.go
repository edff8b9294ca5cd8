package sqlfront

import (
	"bufio"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

// scramSecret is a user's SCRAM-SHA-256 verifier (what pg_authid keeps):
// the password itself is never kept once the file is read.
type scramSecret struct {
	iter      int
	salt      []byte
	storedKey []byte
	serverKey []byte
}

const scramIter = 4096

func hmacSHA(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

func secretFromPassword(password string, salt []byte, iter int) (*scramSecret, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iter, 32)
	if err != nil {
		return nil, err
	}
	ck := hmacSHA(salted, "Client Key")
	sk := sha256.Sum256(ck)
	return &scramSecret{iter: iter, salt: salt, storedKey: sk[:], serverKey: hmacSHA(salted, "Server Key")}, nil
}

// parseSecret reads "SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>"
// (PostgreSQL's rolpassword format).
func parseSecret(s string) (*scramSecret, error) {
	rest, ok := strings.CutPrefix(s, "SCRAM-SHA-256$")
	if !ok {
		return nil, fmt.Errorf("not a SCRAM-SHA-256 verifier")
	}
	a, b, ok := strings.Cut(rest, "$")
	if !ok {
		return nil, fmt.Errorf("malformed SCRAM-SHA-256 verifier")
	}
	is, ss, _ := strings.Cut(a, ":")
	st, sv, _ := strings.Cut(b, ":")
	iter, err := strconv.Atoi(is)
	if err != nil || iter < 1 {
		return nil, fmt.Errorf("malformed SCRAM-SHA-256 iteration count")
	}
	out := &scramSecret{iter: iter}
	for _, p := range []struct {
		in  string
		out *[]byte
	}{{ss, &out.salt}, {st, &out.storedKey}, {sv, &out.serverKey}} {
		if *p.out, err = base64.StdEncoding.DecodeString(p.in); err != nil {
			return nil, fmt.Errorf("malformed SCRAM-SHA-256 verifier: %w", err)
		}
	}
	return out, nil
}

// LoadUsers reads a users file: one `name:secret` a line, where secret is
// a SCRAM-SHA-256 verifier as PostgreSQL stores it (`SELECT rolpassword
// FROM pg_authid`) or a plain password (turned into a verifier at load);
// blank lines and lines starting with # are skipped. Errors name the line,
// never its secret.
func LoadUsers(path string) (map[string]*scramSecret, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sql.users_file: %w", err)
	}
	defer f.Close()
	users := map[string]*scramSecret{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, secret, ok := strings.Cut(l, ":")
		if !ok || name == "" || secret == "" {
			return nil, fmt.Errorf("sql.users_file %s line %d: want name:password or name:SCRAM-SHA-256$…", path, line)
		}
		var s *scramSecret
		if strings.HasPrefix(secret, "SCRAM-SHA-256$") {
			if s, err = parseSecret(secret); err != nil {
				return nil, fmt.Errorf("sql.users_file %s line %d: %w", path, line, err)
			}
		} else {
			salt := make([]byte, 16)
			rand.Read(salt)
			if s, err = secretFromPassword(secret, salt, scramIter); err != nil {
				return nil, fmt.Errorf("sql.users_file %s line %d: %w", path, line, err)
			}
		}
		users[name] = s
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sql.users_file %s: %w", path, err)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("sql.users_file %s: no users", path)
	}
	return users, nil
}

// scramAuth runs SCRAM-SHA-256 (RFC 5802/7677, without channel binding)
// for user; an unknown user fails at the same step as a wrong password.
func scramAuth(be *pgproto3.Backend, wr *wireReader, secret *scramSecret) error {
	fail := errf(codeAuthFailed, -1, "password authentication failed")
	if secret == nil {
		salt := make([]byte, 16)
		rand.Read(salt)
		secret = &scramSecret{iter: scramIter, salt: salt, storedKey: make([]byte, 32), serverKey: make([]byte, 32)}
	}
	be.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256"}})
	if err := be.Flush(); err != nil {
		return err
	}
	wr.authType = pgproto3.AuthTypeSASL
	msg, err := wr.receive()
	if err != nil {
		return err
	}
	init, ok := msg.(*pgproto3.SASLInitialResponse)
	if !ok || init.AuthMechanism != "SCRAM-SHA-256" {
		return errf(codeProtocol, -1, "expected a SCRAM-SHA-256 initial response")
	}
	cf := string(init.Data)
	gs2, bare, ok := cutN(cf, ",", 2)
	if !ok || !(strings.HasPrefix(gs2, "n,") || strings.HasPrefix(gs2, "y,")) {
		return errf(codeProtocol, -1, "SCRAM channel binding is not supported")
	}
	cnonce := ""
	for _, attr := range strings.Split(bare, ",") {
		if v, ok := strings.CutPrefix(attr, "r="); ok {
			cnonce = v
		}
	}
	if cnonce == "" {
		return errf(codeProtocol, -1, "malformed SCRAM client-first message")
	}
	nb := make([]byte, 18)
	rand.Read(nb)
	nonce := cnonce + base64.StdEncoding.EncodeToString(nb)
	sf := fmt.Sprintf("r=%s,s=%s,i=%d", nonce, base64.StdEncoding.EncodeToString(secret.salt), secret.iter)
	be.Send(&pgproto3.AuthenticationSASLContinue{Data: []byte(sf)})
	if err := be.Flush(); err != nil {
		return err
	}
	wr.authType = pgproto3.AuthTypeSASLContinue
	msg, err = wr.receive()
	if err != nil {
		return err
	}
	resp, ok := msg.(*pgproto3.SASLResponse)
	if !ok {
		return errf(codeProtocol, -1, "expected a SCRAM response")
	}
	final := string(resp.Data)
	i := strings.LastIndex(final, ",p=")
	if i < 0 {
		return errf(codeProtocol, -1, "malformed SCRAM client-final message")
	}
	withoutProof, proofB64 := final[:i], final[i+3:]
	if !strings.Contains(withoutProof, "r="+nonce) {
		return fail
	}
	proof, err := base64.StdEncoding.DecodeString(proofB64)
	if err != nil || len(proof) != 32 {
		return fail
	}
	authMsg := bare + "," + sf + "," + withoutProof
	sig := hmacSHA(secret.storedKey, authMsg)
	ck := make([]byte, 32)
	for j := range ck {
		ck[j] = proof[j] ^ sig[j]
	}
	h := sha256.Sum256(ck)
	if !hmac.Equal(h[:], secret.storedKey) {
		return fail
	}
	be.Send(&pgproto3.AuthenticationSASLFinal{Data: []byte("v=" + base64.StdEncoding.EncodeToString(hmacSHA(secret.serverKey, authMsg)))})
	return nil
}

// cutN splits s after the n-th sep: the part up to and including it, and
// the rest.
func cutN(s, sep string, n int) (string, string, bool) {
	i := 0
	for k := 0; k < n; k++ {
		j := strings.Index(s[i:], sep)
		if j < 0 {
			return "", "", false
		}
		i += j + len(sep)
	}
	return s[:i], s[i:], true
}
