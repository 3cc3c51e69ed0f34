package model

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestPartsConn sends bodies through the default client's transport to a
// real server over TCP: a body of parts goes out from the parts (counted)
// and arrives byte for byte, after a partial read too; any other body
// takes the usual way.
func TestPartsConn(t *testing.T) {
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	}))
	defer srv.Close()
	// About 2.3 MB in 3,000 parts of different sizes, some empty: more
	// than one writev (1,024 vectors each).
	var parts [][]byte
	for i := range 3000 {
		parts = append(parts, []byte(strings.Repeat(fmt.Sprintf("%x", i%16), (i*37)%1500)))
	}
	whole := bytes.Join(parts, nil)
	post := func(body io.Reader, size int) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
		req.Body, req.ContentLength = io.NopCloser(body), int64(size)
		if pr, ok := body.(*partsReader); ok {
			req.Body = pr // as Chat.post sends it
		}
		resp, err := defaultClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	t.Run("a Chat's request", func(t *testing.T) {
		c, err := NewChat(ChatConfig{APIKey: "k", BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		before := partsWrites.Load()
		resp, err := c.post(context.Background(), "/chat/completions", parts, len(whole))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !bytes.Equal(got, whole) || partsWrites.Load() == before {
			t.Errorf("the server got %d of %d bytes; written from the parts: %v", len(got), len(whole), partsWrites.Load() > before)
		}
	})
	for _, tc := range []struct {
		name   string
		body   func() io.Reader
		want   []byte
		direct bool
	}{
		{"parts", func() io.Reader { return &partsReader{parts: parts} }, whole, true},
		{"parts, the first 5,000 bytes read already", func() io.Reader {
			r := &partsReader{parts: parts}
			io.CopyN(io.Discard, r, 5000)
			return r
		}, whole[5000:], true},
		{"another body", func() io.Reader { return bytes.NewReader(whole) }, whole, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := partsWrites.Load()
			post(tc.body(), len(tc.want))
			if sha256.Sum256(got) != sha256.Sum256(tc.want) {
				t.Errorf("the server got %d bytes, not the %d sent", len(got), len(tc.want))
			}
			if direct := partsWrites.Load() > before; direct != tc.direct {
				t.Errorf("written from the parts: %v, want %v", direct, tc.direct)
			}
		})
	}
}

func TestPartsReader_Advance(t *testing.T) {
	parts := [][]byte{[]byte("abc"), {}, []byte("de"), []byte("f")}
	for n := int64(0); n <= 6; n++ {
		r := &partsReader{parts: parts}
		r.advance(n)
		rest, _ := io.ReadAll(r)
		if want := "abcdef"[n:]; string(rest) != want || r.remaining() != 0 {
			t.Errorf("after %d: %q, want %q", n, rest, want)
		}
		r = &partsReader{parts: parts}
		r.advance(n)
		if r.remaining() != 6-n {
			t.Errorf("remaining after %d: %d", n, r.remaining())
		}
	}
}

// TestPartsConn_Read reads through the raw read(2): data as it comes in
// pieces (each waiting on the poller first), a deadline as a timeout, the
// peer's close as io.EOF, and our own close as net.ErrClosed.
func TestPartsConn_Read(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	tc, err := net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	c := partsConn{tc, raw}
	peer := <-accepted
	defer peer.Close()
	go func() {
		for _, piece := range []string{"data: one\n\n", "data: two\n\n"} {
			time.Sleep(20 * time.Millisecond) // the reader waits on the poller
			peer.Write([]byte(piece))
		}
	}()
	var got []byte
	buf := make([]byte, 64)
	for len(got) < len("data: one\n\ndata: two\n\n") {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != "data: one\n\ndata: two\n\n" {
		t.Errorf("read %q", got)
	}
	if rawReads.Load() == 0 {
		t.Error("the reads did not go through the raw read")
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	if _, err := c.Read(buf); !isTimeout(err) {
		t.Errorf("past the deadline: %v, want a timeout", err)
	}
	c.SetReadDeadline(time.Time{})
	peer.Close()
	if n, err := c.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("after the peer closed: %d, %v; want io.EOF", n, err)
	}
	c.Close()
	if _, err := c.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Errorf("after closing: %v, want net.ErrClosed", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
