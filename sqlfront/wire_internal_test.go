package sqlfront

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// arrivals yields its data, then blocks the reader with io.ErrNoProgress
// standing in for "nothing more has arrived yet".
type arrivals struct{ r io.Reader }

func (a *arrivals) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if err == io.EOF {
		return n, io.ErrNoProgress
	}
	return n, err
}

// A header claiming a body under the limit takes memory only for the
// bytes that arrived, never the claimed length up front.
func TestReadBodyGrowsWithArrivals(t *testing.T) {
	for _, sent := range []int{0, 1000, 100 << 10, 1 << 20} {
		msg := binary.BigEndian.AppendUint32([]byte{'Q'}, 15<<20+4)
		msg = append(msg, bytes.Repeat([]byte{'x'}, sent)...)
		w := newWireReaderFrom(&arrivals{bytes.NewReader(msg)}, nil, 16<<20)
		_, err := w.receive()
		if !errors.Is(err, io.ErrNoProgress) {
			t.Fatalf("sent %d: want the reader's error, got %v", sent, err)
		}
		if limit := max(2*sent, readChunk) + readChunk; cap(w.body) > limit {
			t.Errorf("sent %d of a 15 MiB claim: the body buffer has %d bytes, want at most %d", sent, cap(w.body), limit)
		}
	}
}

// FuzzWireReader feeds arbitrary bytes to the message reader: it must
// never panic, never take more memory than twice what arrived (plus one
// chunk), and refuse lengths past the bounds.
func FuzzWireReader(f *testing.F) {
	f.Add([]byte("Q\x00\x00\x00\x0dSELECT 1\x00S\x00\x00\x00\x04"))
	f.Add([]byte("B\x00\x00\x00\x0e\x00s\x00\x00\x00\x00\x05\x00\x00\x00"))
	f.Add([]byte("Q\x7f\xff\xff\xffSELECT"))
	f.Add([]byte("P\x00\x00\x00\x10\x00SELECT $1\x00\x00\x01"))
	f.Add([]byte("\x00\x00\x00\x08\x04\xd2\x16\x2f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		w := newWireReaderFrom(bytes.NewReader(data), nil, 1<<16)
		if len(data) > 0 && data[0] == 0 {
			if _, err := w.startup(); err != nil {
				return
			}
		}
		for i := 0; i < 1000; i++ {
			msg, err := w.receive()
			if limit := max(2*len(data), readChunk) + readChunk; cap(w.body) > limit {
				t.Fatalf("body buffer %d bytes for %d bytes of input", cap(w.body), len(data))
			}
			var fe *fatalError
			var e *Error
			switch {
			case errors.As(err, &fe):
				if fe.e.Code != codeProtocol {
					t.Fatalf("fatal error with code %s", fe.e.Code)
				}
				return
			case errors.As(err, &e):
				if e.Code != codeProtocol {
					t.Fatalf("message error with code %s", e.Code)
				}
				continue
			case err != nil:
				return
			}
			if msg == nil {
				t.Fatal("no message and no error")
			}
		}
	})
}
