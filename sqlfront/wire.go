package sqlfront

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Message size bounds. PostgreSQL takes at most 10,000 bytes for a
// startup packet (MAX_STARTUP_PACKET_LENGTH) and, after startup, at most
// PQ_SMALL_MESSAGE_LIMIT (10,000) for messages that carry no statement
// text or data and 1 GiB for the rest; sidecar keeps the small limit and
// caps the large one at sql.max_message_size (DefaultMaxMessageSize).
const (
	maxStartupPacket = 10000
	maxSmallMessage  = 10000
	// maxAuthMessage bounds a password or SASL message
	// (PG_MAX_AUTH_TOKEN_LENGTH).
	maxAuthMessage = 65535
	// DefaultMaxMessageSize bounds Query, Parse, Bind and other large
	// messages when sql.max_message_size is not set: 16 MiB holds a
	// statement with an IN list of a million integers, and 100 sessions
	// each sending that much stay under 2 GiB.
	DefaultMaxMessageSize = 16 << 20
	// readChunk is the first allocation for a body larger than the
	// reused buffer; the buffer then doubles only as bytes arrive.
	readChunk = 64 << 10
	// keepBody is the largest body buffer a session keeps between
	// messages; a larger one is dropped once its message is handled.
	keepBody = 1 << 20
)

// wireReader reads frontend messages off a connection with PostgreSQL's
// bounds: a length over the bound is refused before anything is
// allocated, and a body's memory grows only as its bytes arrive (never
// up front from the length a header claims). Messages it returns are
// valid until the next call.
//
// Only the session's goroutine reads messages; while a statement runs,
// watch lets another goroutine notice the client going away by peeking,
// which never consumes a byte.
type wireReader struct {
	conn net.Conn
	br   *bufio.Reader
	max  int // the bound of large messages
	body []byte
	hdr  [5]byte
	// authType says how to read a 'p' message (SASL initial or
	// continuation response).
	authType uint32

	// gone is set once a watch saw the connection end (EOF or an error).
	gone atomic.Bool

	// msgs are the messages, reused, by type byte.
	msgs map[byte]pgproto3.FrontendMessage
}

// newWireReader reads from conn; max bounds large messages (0: the default).
func newWireReader(conn net.Conn, max int) *wireReader {
	if max <= 0 {
		max = DefaultMaxMessageSize
	}
	return newWireReaderFrom(conn, conn, max)
}

// newWireReaderFrom reads from r; conn (nil in tests of the reader) is
// where a watch sets deadlines.
func newWireReaderFrom(r io.Reader, conn net.Conn, max int) *wireReader {
	return &wireReader{conn: conn, br: bufio.NewReaderSize(r, 16<<10), max: max, msgs: map[byte]pgproto3.FrontendMessage{
		'Q': &pgproto3.Query{}, 'P': &pgproto3.Parse{}, 'B': &pgproto3.Bind{}, 'C': &pgproto3.Close{}, 'D': &pgproto3.Describe{},
		'E': &pgproto3.Execute{}, 'H': &pgproto3.Flush{}, 'S': &pgproto3.Sync{}, 'X': &pgproto3.Terminate{},
	}}
}

// fatalError is a protocol violation after which the message stream
// cannot be followed: the session sends it as FATAL and closes.
type fatalError struct{ e *Error }

func (f *fatalError) Error() string { return f.e.Msg }

func protocolFatal(format string, args ...any) error {
	return &fatalError{errf(codeProtocol, -1, format, args...)}
}

// readBody reads an n-byte body into the reused buffer, growing it by
// doubling as the bytes arrive, so that memory follows what the client
// actually sent.
func (w *wireReader) readBody(n int) ([]byte, error) {
	if cap(w.body) > keepBody {
		w.body = nil
	}
	if n <= cap(w.body) {
		b := w.body[:n]
		if _, err := io.ReadFull(w.br, b); err != nil {
			return nil, eofToUnexpected(err)
		}
		return b, nil
	}
	b := w.body[:0]
	for len(b) < n {
		want := min(n, max(2*cap(b), readChunk))
		if cap(b) < want {
			nb := make([]byte, len(b), want)
			copy(nb, b)
			b = nb
		}
		m, err := io.ReadFull(w.br, b[len(b):want])
		b = b[:len(b)+m]
		if err != nil {
			return nil, eofToUnexpected(err)
		}
	}
	w.body = b
	return b, nil
}

func eofToUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// startup reads the first message of a connection: StartupMessage,
// SSLRequest, GSSEncRequest or CancelRequest.
func (w *wireReader) startup() (pgproto3.FrontendMessage, error) {
	if _, err := io.ReadFull(w.br, w.hdr[:4]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(w.hdr[:4]))) - 4
	if n < 4 || n > maxStartupPacket {
		return nil, protocolFatal("invalid length of startup packet")
	}
	body, err := w.readBody(n)
	if err != nil {
		return nil, err
	}
	var msg pgproto3.FrontendMessage
	switch code := binary.BigEndian.Uint32(body); code {
	case pgproto3.ProtocolVersion30, pgproto3.ProtocolVersion32:
		msg = &pgproto3.StartupMessage{}
	case 80877103:
		msg = &pgproto3.SSLRequest{}
	case 80877102:
		msg = &pgproto3.CancelRequest{}
	case 80877104:
		msg = &pgproto3.GSSEncRequest{}
	default:
		return nil, &fatalError{errf("0A000", -1, "unsupported frontend protocol %d.%d: server supports 3.0 and 3.2", code>>16, code&0xffff)}
	}
	if err := decode(msg, body); err != nil {
		return nil, &fatalError{errf(codeProtocol, -1, "invalid startup packet layout: %v", err)}
	}
	return msg, nil
}

// decode runs a message's decoder, turning a panic on malformed input
// into an error.
func decode(msg pgproto3.FrontendMessage, body []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed %T message", msg)
		}
	}()
	return msg.Decode(body)
}

// receive reads the next message. A length out of bounds or an unknown
// type is a *fatalError; a malformed body whose length was valid is an
// *Error (08P01) after which the stream goes on; anything else is the
// connection's error.
func (w *wireReader) receive() (pgproto3.FrontendMessage, error) {
	if _, err := io.ReadFull(w.br, w.hdr[:]); err != nil {
		return nil, err
	}
	typ := w.hdr[0]
	n := int(int32(binary.BigEndian.Uint32(w.hdr[1:]))) - 4
	msg, large, known := w.message(typ)
	if !known {
		return nil, protocolFatal("invalid frontend message type %d", typ)
	}
	limit := maxSmallMessage
	if large {
		limit = w.max
	}
	if typ == 'p' {
		limit = min(limit, maxAuthMessage) // before authentication: as PostgreSQL
	}
	if n < 0 || n > limit {
		return nil, protocolFatal("invalid message length %d for message type %q (the limit is %d bytes; see sql.max_message_size)", n+4, typ, limit)
	}
	body, err := w.readBody(n)
	if err != nil {
		return nil, err
	}
	if msg == nil {
		return nil, errf(codeProtocol, -1, "unexpected message type %q: sidecar is a read-only mirror (no COPY FROM or function calls)", typ)
	}
	if err := decode(msg, body); err != nil {
		return nil, errf(codeProtocol, -1, "invalid %q message: %v", typ, err)
	}
	return msg, nil
}

// message is the reused message for a type byte; large says it is
// bounded by sql.max_message_size rather than 10,000 bytes. FunctionCall
// and COPY data are never valid on a read-only mirror: they are read
// (bounded) only to keep the stream in step, with a nil message.
func (w *wireReader) message(typ byte) (msg pgproto3.FrontendMessage, large, known bool) {
	if m, ok := w.msgs[typ]; ok {
		return m, typ == 'Q' || typ == 'P' || typ == 'B', true
	}
	switch typ {
	case 'p':
		switch w.authType {
		case pgproto3.AuthTypeSASL:
			return &pgproto3.SASLInitialResponse{}, true, true
		case pgproto3.AuthTypeSASLContinue:
			return &pgproto3.SASLResponse{}, true, true
		}
		return &pgproto3.PasswordMessage{}, true, true
	case 'F', 'd', 'c', 'f':
		return nil, true, true
	}
	return nil, false, false
}

// watchAfter is how long a statement runs before its connection is
// watched for the client going away (shorter statements finish anyway).
const watchAfter = 50 * time.Millisecond

// watch arms a watch of the connection for the life of one statement:
// after watchAfter, a goroutine peeks at the connection (never consuming
// a byte: pipelined messages stay buffered for the session) and calls
// onGone when it ends. stop ends the watch and waits for its goroutine;
// it must be called before the session reads again.
func (w *wireReader) watch(onGone func()) (stop func()) {
	var mu sync.Mutex
	state := 0 // 0 armed, 1 watching, 2 stopped
	done := make(chan struct{})
	quit := make(chan struct{})
	t := time.AfterFunc(watchAfter, func() {
		mu.Lock()
		if state != 0 {
			mu.Unlock()
			return
		}
		state = 1
		mu.Unlock()
		defer close(done)
		w.peekUntilGone(quit, onGone)
	})
	return func() {
		mu.Lock()
		watching := state == 1
		state = 2
		mu.Unlock()
		if !watching {
			t.Stop()
			return
		}
		close(quit)
		w.conn.SetReadDeadline(time.Now())
		<-done
		w.conn.SetReadDeadline(time.Time{})
	}
}

// peekUntilGone reads ahead into the buffer (without consuming) until
// the connection ends, quit closes, or the buffer is full of pipelined
// input (then it waits for quit: a client that sent that much is still
// there, or its writes fail).
func (w *wireReader) peekUntilGone(quit <-chan struct{}, onGone func()) {
	for {
		n := w.br.Buffered()
		if n >= w.br.Size() {
			<-quit
			return
		}
		_, err := w.br.Peek(n + 1)
		if err == nil {
			continue
		}
		select {
		case <-quit:
			return
		default:
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			continue
		}
		w.gone.Store(true)
		onGone()
		return
	}
}
