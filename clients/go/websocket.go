package a4aa

// A small RFC 6455 client: what Dial needs to reach `a4aa serve --listen ws://…|wss://…`
// with the standard library only (Go 1.19 has no WebSocket client). Text frames, masked as
// a client must; fragmented messages reassembled; ping answered with pong; a close frame
// answered and ended; a message over the size bound ends the connection. No extensions
// (no permessage-deflate), no subprotocols.

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA
)

const websocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// HandshakeError is a refused upgrade: the sidecar answered HTTP Status instead of 101
// (401: the token; 403: the Origin; 404: the path). Reconnecting does not help.
type HandshakeError struct {
	URL    string
	Status int
	Body   string
}

func (e *HandshakeError) Error() string {
	why := ""
	switch e.Status {
	case http.StatusUnauthorized:
		why = ": the sidecar refused the token; pass the TOKEN of one NAME:TOKEN line of its --auth-token-file as DialOptions.Token"
	case http.StatusForbidden:
		why = ": the sidecar refused this connection's Origin header (its --allow-origin)"
	case http.StatusNotFound:
		why = ": no a4aa listener at this path (use the URL `a4aa serve` printed)"
	}
	return fmt.Sprintf("%s: the upgrade was answered HTTP %d%s", e.URL, e.Status, why)
}

// wsConn is one client WebSocket connection. ReadMessage is called by one goroutine;
// WriteText, Ping and Close may be called by any.
type wsConn struct {
	conn     net.Conn
	br       *bufio.Reader
	wmu      sync.Mutex
	maxBytes int
	closed   bool
}

// dialWebSocket opens a connection to a ws:// or wss:// URL with these headers.
func dialWebSocket(ctx context.Context, rawURL string, header http.Header, tlsConfig *tls.Config, maxBytes int) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("a4aa: %q is not a URL: %w", rawURL, err)
	}
	port := u.Port()
	switch u.Scheme {
	case "ws":
		if port == "" {
			port = "80"
		}
	case "wss":
		if port == "" {
			port = "443"
		}
	default:
		return nil, fmt.Errorf("a4aa: %q: want a ws:// or wss:// URL (as `a4aa serve --listen` prints it)", rawURL)
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: %w", rawURL, err)
	}
	if u.Scheme == "wss" {
		cfg := &tls.Config{}
		if tlsConfig != nil {
			cfg = tlsConfig.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = u.Hostname()
		}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("cannot connect to %s: TLS: %w", rawURL, err)
		}
		conn = tc
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	key := make([]byte, 16)
	if _, err := rand.Read(key); err != nil {
		conn.Close()
		return nil, err
	}
	k := base64.StdEncoding.EncodeToString(key)
	path := u.RequestURI()
	var req strings.Builder
	fmt.Fprintf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n", path, u.Host, k)
	for name, values := range header {
		for _, v := range values {
			if strings.ContainsAny(name+v, "\r\n") {
				conn.Close()
				return nil, fmt.Errorf("a4aa: header %q holds a line break", name)
			}
			fmt.Fprintf(&req, "%s: %s\r\n", name, v)
		}
	}
	req.WriteString("\r\n")
	if _, err := io.WriteString(conn, req.String()); err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot connect to %s: %w", rawURL, err)
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	res, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("cannot connect to %s: reading the upgrade's answer: %w", rawURL, err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		conn.Close()
		return nil, &HandshakeError{URL: rawURL, Status: res.StatusCode, Body: strings.TrimSpace(string(body))}
	}
	sum := sha1.Sum([]byte(k + websocketGUID))
	if res.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) || !strings.EqualFold(res.Header.Get("Upgrade"), "websocket") {
		conn.Close()
		return nil, fmt.Errorf("cannot connect to %s: the answer is not a WebSocket upgrade (Sec-WebSocket-Accept does not match)", rawURL)
	}
	_ = conn.SetDeadline(time.Time{})
	return &wsConn{conn: conn, br: br, maxBytes: maxBytes}, nil
}

// writeFrame sends one masked frame.
func (w *wsConn) writeFrame(op byte, payload []byte) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.closed && op != opClose {
		return errors.New("the connection is closed")
	}
	n := len(payload)
	head := make([]byte, 0, 14)
	head = append(head, 0x80|op)
	switch {
	case n < 126:
		head = append(head, 0x80|byte(n))
	case n <= 0xFFFF:
		head = append(head, 0x80|126, byte(n>>8), byte(n))
	default:
		head = append(head, 0x80|127)
		head = binary.BigEndian.AppendUint64(head, uint64(n))
	}
	var mask [4]byte
	if _, err := rand.Read(mask[:]); err != nil {
		return err
	}
	head = append(head, mask[:]...)
	buf := make([]byte, len(head)+n)
	copy(buf, head)
	body := buf[len(head):]
	for i := 0; i < n; i++ {
		body[i] = payload[i] ^ mask[i&3]
	}
	_, err := w.conn.Write(buf)
	return err
}

// WriteText sends one text message.
func (w *wsConn) WriteText(msg []byte) error { return w.writeFrame(opText, msg) }

// Ping sends a ping frame.
func (w *wsConn) Ping() error { return w.writeFrame(opPing, nil) }

// ReadMessage returns the next text or binary message; pings are answered and pongs
// reported through onControl. A close frame ends with io.EOF after answering it.
func (w *wsConn) ReadMessage(onControl func()) ([]byte, error) {
	var msg []byte
	started := false
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.br, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0F
		if h[1]&0x80 != 0 {
			return nil, errors.New("the sidecar sent a masked frame (a server must not)")
		}
		n := uint64(h[1] & 0x7F)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if op >= opClose {
			if n > 125 || !fin {
				return nil, errors.New("the sidecar sent a malformed control frame")
			}
			payload := make([]byte, n)
			if _, err := io.ReadFull(w.br, payload); err != nil {
				return nil, err
			}
			if onControl != nil {
				onControl()
			}
			switch op {
			case opPing:
				_ = w.writeFrame(opPong, payload)
			case opClose:
				_ = w.writeFrame(opClose, payload)
				w.shut()
				if len(payload) >= 2 {
					return nil, fmt.Errorf("the sidecar closed the connection (%d %s)", binary.BigEndian.Uint16(payload), payload[2:])
				}
				return nil, io.EOF
			}
			continue
		}
		if op == opContinuation && !started {
			return nil, errors.New("the sidecar sent a continuation frame outside a message")
		}
		if op != opContinuation && started {
			return nil, errors.New("the sidecar started a message inside another")
		}
		started = true
		if uint64(len(msg))+n > uint64(w.maxBytes) {
			return nil, fmt.Errorf("the sidecar sent a message over %d bytes (DialOptions.MaxMessageBytes)", w.maxBytes)
		}
		at := len(msg)
		msg = append(msg, make([]byte, n)...)
		if _, err := io.ReadFull(w.br, msg[at:]); err != nil {
			return nil, err
		}
		if fin {
			return msg, nil
		}
	}
}

func (w *wsConn) shut() {
	w.wmu.Lock()
	w.closed = true
	w.wmu.Unlock()
	_ = w.conn.Close()
}

// Close sends a close frame (1000) and closes the connection.
func (w *wsConn) Close() {
	_ = w.writeFrame(opClose, []byte{0x03, 0xE8})
	w.shut()
}

// Abort closes the connection without a close frame (a lost connection).
func (w *wsConn) Abort() { w.shut() }
