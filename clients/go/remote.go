package a4aa

// Dial (R-REMOTE-10): a Client of a sidecar reached over the network (`a4aa serve --listen
// ws://…|wss://…`), one JSON-RPC message a text frame, a bearer token on the upgrade. The
// calls and Events are the spawned client's. A lost connection is reconnected with backoff;
// every session the client had is attached again from the last seq it delivered and the
// requests in flight that carry an operationId are sent again, so each session's Events go
// on with no gap and no duplicate and a turn's answer arrives once. A request in flight
// without one fails peer_closed with UncertainEffect.

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand"
	"net/http"
	"os"
	"sync"
	"time"
)

// ReconnectOptions bound the reconnection after a lost connection.
type ReconnectOptions struct {
	// MaxAttempts: connection attempts after one loss before giving up. Default 10.
	MaxAttempts int
	// MaxTime: the longest time spent reconnecting after one loss. Default 60 s.
	MaxTime time.Duration
	// InitialDelay: the first wait; it doubles each attempt (jittered, 50–100 %). Default 100 ms.
	InitialDelay time.Duration
	// MaxDelay: the longest wait between attempts. Default 5 s.
	MaxDelay time.Duration
}

// DialOptions configure Dial.
type DialOptions struct {
	// Token is sent as `Authorization: Bearer TOKEN` (the sidecar's --auth-token-file).
	Token string
	// Header: other headers of the upgrade request (e.g. Origin).
	Header http.Header
	// TLSConfig for wss:// (nil: the system's roots).
	TLSConfig *tls.Config
	// Permission answers permission requests, as Options.Permission.
	Permission PermissionHandler
	// Log receives what happens to the connection (a loss, a reconnection); nil is os.Stderr.
	Log io.Writer
	// ConnectTimeout bounds one connection attempt. Default 10 s.
	ConnectTimeout time.Duration
	Reconnect      ReconnectOptions
	// PingInterval: a WebSocket ping this often (default 15 s); a connection from which
	// nothing arrives for PongTimeout (default 30 s) is taken as lost and reconnected.
	PingInterval time.Duration
	PongTimeout  time.Duration
	// MaxMessageBytes: a larger incoming message ends the connection. Default 1 GiB.
	MaxMessageBytes int
}

// remote is the state of a Dial'ed client.
type remote struct {
	url  string
	opts DialOptions
	c    *Client

	mu         sync.Mutex
	ws         *wsConn
	sessions   map[string]int64 // session id → last seq delivered
	resendable map[int64][]byte // requests in flight with an operationId, by id
	resent     map[int64]bool   // sent again on a new connection
	closing    bool
	lastRecv   time.Time
	reconnects int
	finished   sync.Once
}

// finish ends the client for good: pending calls fail peer_closed, streams end, Done closes.
func (r *remote) finish(cause string) {
	r.finished.Do(func() {
		r.c.end(cause)
		close(r.c.readerDone)
		close(r.c.exited)
	})
}

// Dial connects to a sidecar's WebSocket listener.
func Dial(ctx context.Context, url string, opts DialOptions) (*Client, error) {
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = 15 * time.Second
	}
	if opts.PongTimeout <= 0 {
		opts.PongTimeout = 30 * time.Second
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = 1 << 30
	}
	r := &remote{url: url, opts: opts, sessions: map[string]int64{}, resendable: map[int64][]byte{}, resent: map[int64]bool{}}
	ws, err := r.connect(ctx)
	if err != nil {
		return nil, err
	}
	c := newClient(Options{Permission: opts.Permission, Stderr: opts.Log}, nopWriteCloser{})
	c.remote = r
	r.c = c
	r.ws = ws
	r.lastRecv = time.Now()
	go r.readLoop(ws)
	go r.heartbeat()
	return c, nil
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }

func (r *remote) connect(ctx context.Context) (*wsConn, error) {
	h := http.Header{}
	for k, v := range r.opts.Header {
		h[k] = v
	}
	if r.opts.Token != "" {
		h.Set("Authorization", "Bearer "+r.opts.Token)
	}
	cctx, cancel := context.WithTimeout(ctx, r.opts.ConnectTimeout)
	defer cancel()
	return dialWebSocket(cctx, r.url, h, r.opts.TLSConfig, r.opts.MaxMessageBytes)
}

func (r *remote) log(format string, a ...any) {
	w := r.opts.Log
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "a4aa client: "+format+"\n", a...)
}

// send writes one message (a line without its newline) on the current connection.
func (r *remote) send(msg []byte) error {
	for len(msg) > 0 && msg[len(msg)-1] == '\n' {
		msg = msg[:len(msg)-1]
	}
	r.mu.Lock()
	ws := r.ws
	r.mu.Unlock()
	if ws == nil {
		return errors.New("reconnecting")
	}
	return ws.WriteText(msg)
}

func (r *remote) readLoop(ws *wsConn) {
	for {
		msg, err := ws.ReadMessage(func() { r.touch() })
		if err != nil {
			r.lost(ws, err)
			return
		}
		r.touch()
		r.c.handleLine(msg)
	}
}

func (r *remote) touch() {
	r.mu.Lock()
	r.lastRecv = time.Now()
	r.mu.Unlock()
}

// heartbeat pings; a connection silent for PongTimeout is aborted (and so reconnected).
func (r *remote) heartbeat() {
	t := time.NewTicker(r.opts.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-r.c.readerDone:
			return
		case <-t.C:
		}
		r.mu.Lock()
		ws, silent := r.ws, time.Since(r.lastRecv)
		r.mu.Unlock()
		if ws == nil {
			continue
		}
		if silent > r.opts.PongTimeout {
			r.log("nothing from %s for %v; taking the connection as lost", r.url, silent.Round(time.Millisecond))
			ws.Abort()
			continue
		}
		_ = ws.Ping()
	}
}

// lost: the connection ws ended. Requests without an operationId fail; then reconnect.
func (r *remote) lost(ws *wsConn, why error) {
	r.mu.Lock()
	if r.ws != ws {
		r.mu.Unlock()
		return
	}
	r.ws = nil
	closing := r.closing
	r.mu.Unlock()
	if closing {
		r.finish("the client closed the connection")
		return
	}
	r.failUnresendable(fmt.Sprintf("the connection to %s was lost (%v) with the request in flight; it carried no operationId, so it may or may not have run", r.url, why))
	r.log("lost the connection to %s (%v); reconnecting", r.url, why)
	go r.reconnect(why)
}

func (r *remote) failUnresendable(cause string) {
	c := r.c
	c.mu.Lock()
	r.mu.Lock()
	var failed []chan response
	var turns []*turnCall
	for id, ch := range c.pending {
		if _, ok := r.resendable[id]; ok {
			continue
		}
		failed = append(failed, ch)
		if t := c.turns[id]; t != nil {
			turns = append(turns, t)
		}
		delete(c.pending, id)
		delete(c.turns, id)
	}
	r.mu.Unlock()
	c.mu.Unlock()
	for _, t := range turns {
		c.pushTurnEnd(t, TurnEnd{Err: peerClosed(true, cause), call: t})
	}
	for _, ch := range failed {
		ch <- response{err: peerClosed(true, cause)}
	}
}

func (r *remote) reconnect(why error) {
	o := r.opts.Reconnect
	maxAttempts, maxTime, base, ceiling := o.MaxAttempts, o.MaxTime, o.InitialDelay, o.MaxDelay
	if maxAttempts <= 0 {
		maxAttempts = 10
	}
	if maxTime <= 0 {
		maxTime = time.Minute
	}
	if base <= 0 {
		base = 100 * time.Millisecond
	}
	if ceiling <= 0 {
		ceiling = 5 * time.Second
	}
	start := time.Now()
	last := why
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		d := base << (attempt - 1)
		if d > ceiling || d <= 0 {
			d = ceiling
		}
		d = time.Duration(float64(d) * (0.5 + mrand.Float64()/2))
		if time.Since(start)+d > maxTime {
			break
		}
		time.Sleep(d)
		r.mu.Lock()
		closing := r.closing
		r.mu.Unlock()
		if closing {
			break
		}
		ws, err := r.connect(context.Background())
		if err != nil {
			last = err
			var he *HandshakeError
			if errors.As(err, &he) {
				break
			}
			continue
		}
		r.mu.Lock()
		r.ws = ws
		r.lastRecv = time.Now()
		r.mu.Unlock()
		go r.readLoop(ws)
		if err := r.reattach(); err != nil {
			last = err
			ws.Abort() // lost() runs again, and reconnects from the start
			return
		}
		r.mu.Lock()
		r.reconnects++
		n := len(r.sessions)
		r.mu.Unlock()
		r.log("reconnected to %s (attempt %d); %d session(s) attached again", r.url, attempt, n)
		return
	}
	r.finish(fmt.Sprintf("lost the connection to %s (%v) and could not reconnect: %v", r.url, why, last))
}

// reattach attaches every session from its last delivered seq, then sends again the
// requests in flight that carry an operationId.
func (r *remote) reattach() error {
	r.mu.Lock()
	ids := make(map[string]int64, len(r.sessions))
	for id, seq := range r.sessions {
		ids[id] = seq
	}
	r.mu.Unlock()
	for id, seq := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), r.opts.ConnectTimeout)
		_, err := r.c.request(ctx, "session/attach", map[string]any{"sessionId": id, "afterSeq": seq})
		cancel()
		if err != nil {
			var e *Error
			if errors.As(err, &e) && e.Code != ErrorCodePeerClosed {
				// Gone (closed, detach TTL) or too far behind: that session's events end here.
				r.log("could not attach session %s again: %v; its events end here", id, err)
				r.mu.Lock()
				delete(r.sessions, id)
				r.mu.Unlock()
				r.c.mu.Lock()
				s := r.c.streamLocked(id)
				r.c.mu.Unlock()
				s.finish()
				continue
			}
			return err
		}
	}
	r.mu.Lock()
	again := make(map[int64][]byte, len(r.resendable))
	for id, msg := range r.resendable {
		again[id] = msg
		r.resent[id] = true
	}
	r.mu.Unlock()
	for _, msg := range again {
		if err := r.send(msg); err != nil {
			return err
		}
	}
	return nil
}

// withOperationID gives session/open and session/prompt sent by the typed methods
// (SessionOpen, SessionPrompt, Prompt, PromptStream) an operationId (R-REMOTE-6) unless they
// carry one; the request can then be sent again after a lost connection. Call sends its
// params as they are.
func withOperationID(method string, params any, p []byte) ([]byte, bool) {
	switch params.(type) {
	case SessionOpenParams, *SessionOpenParams, SessionPromptParams, *SessionPromptParams:
	default:
		return p, false
	}
	if method != "session/open" && method != methodPrompt {
		return p, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(p, &m) != nil || m == nil {
		return p, false
	}
	if _, ok := m["operationId"]; !ok {
		m["operationId"], _ = json.Marshal(newUUID())
	}
	out, err := json.Marshal(m)
	if err != nil {
		return p, false
	}
	return out, true
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// inFlight records a resendable request (its whole message).
func (r *remote) inFlight(id int64, msg []byte) {
	r.mu.Lock()
	r.resendable[id] = msg
	r.mu.Unlock()
}

// answered: request id is done; it reports whether it was sent again on a new connection.
func (r *remote) answered(id int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	was := r.resent[id]
	delete(r.resendable, id)
	delete(r.resent, id)
	return was
}

// beforeCall: an attach with afterSeq sets where the session's events resume before it is
// sent — its catch-up may be read before the caller sees the answer.
func (r *remote) beforeCall(method string, params any) {
	if method != "session/attach" {
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
		AfterSeq  *int64 `json:"afterSeq"`
	}
	b, _ := json.Marshal(params)
	if json.Unmarshal(b, &p) != nil || p.AfterSeq == nil {
		return
	}
	r.mu.Lock()
	r.sessions[p.SessionID] = *p.AfterSeq
	r.mu.Unlock()
}

// tracked updates the sessions after a successful call (open, attach, close, detach).
func (r *remote) tracked(method string, params any, result json.RawMessage) {
	sid := sessionOf(params)
	if method == "session/open" {
		var res struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(result, &res)
		sid = res.SessionID
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch method {
	case "session/open":
		if _, ok := r.sessions[sid]; !ok && sid != "" {
			r.sessions[sid] = 0
		}
	case "session/attach":
		// afterSeq was recorded when the attach was sent (beforeCall); without one, from now.
		if _, ok := r.sessions[sid]; !ok {
			var res struct {
				LastSeq int64 `json:"lastSeq"`
			}
			_ = json.Unmarshal(result, &res)
			r.sessions[sid] = res.LastSeq
		}
	case "session/close", "session/detach":
		delete(r.sessions, sid)
	}
}

// attachOpened attaches the session a repeated session/open answered with, from the last
// seq delivered (0: its events so far).
func (r *remote) attachOpened(ctx context.Context, result json.RawMessage) error {
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(result, &res); err != nil || res.SessionID == "" {
		return nil
	}
	r.mu.Lock()
	seq := r.sessions[res.SessionID]
	r.mu.Unlock()
	_, err := r.c.request(ctx, "session/attach", map[string]any{"sessionId": res.SessionID, "afterSeq": seq})
	return err
}

// fresh: whether an event with this seq is new for its session (then it is recorded).
func (r *remote) fresh(sessionID string, seq int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	last, known := r.sessions[sessionID]
	if known && seq <= last {
		return false
	}
	r.sessions[sessionID] = seq
	return true
}

// close ends the connection on purpose: no reconnection; pending calls fail peer_closed.
func (r *remote) close() {
	r.mu.Lock()
	r.closing = true
	ws := r.ws
	r.mu.Unlock()
	if ws != nil {
		ws.Close()
		return
	}
	// Between connections: nothing will call lost(); end here.
	r.finish("the client closed the connection")
}

// Reconnects is how many times a Dial'ed client reconnected (0 for a spawned one).
func (c *Client) Reconnects() int {
	if c.remote == nil {
		return 0
	}
	c.remote.mu.Lock()
	defer c.remote.mu.Unlock()
	return c.remote.reconnects
}
