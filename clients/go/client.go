package a4aa

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// PermissionHandler answers the sidecar's permission/request: return PermissionSelected
// with one of req.Options' ids, or PermissionCancelled. An error, a panic or a missing
// handler all fail closed ("cancelled"); an error or a missing handler is decided by the
// sidecar's policy (decidedBy "policy"), not reported as the host's choice.
type PermissionHandler func(ctx context.Context, req PermissionRequest) (PermissionResponse, error)

// Options configure Start.
type Options struct {
	// Command runs the sidecar; when empty, SidecarCommand finds it ($A4AA_SERVE, the npm
	// package beside the host, a4aa on PATH; never npx or a registry).
	Command []string
	// Env is the sidecar's environment; nil inherits this process's.
	Env []string
	// Dir is the sidecar's working directory; "" is this process's.
	Dir string
	// Stderr receives the sidecar's log lines; nil is os.Stderr.
	Stderr io.Writer
	// Permission answers permission requests; nil answers every one with cancelled.
	Permission PermissionHandler
	// MaxLineBytes bounds one incoming line; longer ones are skipped. Default 1 GiB.
	MaxLineBytes int
	// CloseTimeout is how long Close waits for the sidecar to exit after EOF before it
	// kills it. Default 30 s.
	CloseTimeout time.Duration
}

type response struct {
	result json.RawMessage
	err    *Error
}

// Client is one connection to a sidecar. Its methods are safe for concurrent use.
type Client struct {
	opts  Options
	cmd   *exec.Cmd
	stdin io.WriteCloser

	wmu sync.Mutex // one writer at a time

	noHandlerOnce sync.Once

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]chan response
	turns    map[int64]*turnCall // pending prompts, by request id
	streams  map[string]*eventStream
	ended    bool
	endCause string

	handlerCtx    context.Context
	cancelHandler context.CancelFunc
	readerDone    chan struct{}
	exited        chan struct{}
	exitErr       error
	closeOnce     sync.Once

	// remote: a client made by Dial (remote.go); nil for a spawned or Connect'ed one.
	remote *remote
}

// Start spawns the sidecar and connects to it.
func Start(opts Options) (*Client, error) {
	argv := opts.Command
	if len(argv) == 0 {
		found, err := SidecarCommand(opts.Env, opts.Dir)
		if err != nil {
			return nil, err
		}
		argv = found
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = opts.Env
	cmd.Dir = opts.Dir
	cmd.Stderr = opts.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("a4aa: start %q: %w", argv[0], err)
	}
	c := newClient(opts, stdin)
	c.cmd = cmd
	go func() {
		c.readLoop(stdout)
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// Connect speaks the protocol over existing streams (an already running sidecar, a test
// peer). Close closes w and waits until r ends.
func Connect(r io.Reader, w io.WriteCloser, opts Options) *Client {
	c := newClient(opts, w)
	go func() {
		c.readLoop(r)
		close(c.exited)
	}()
	return c
}

func newClient(opts Options, stdin io.WriteCloser) *Client {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = 1 << 30
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Client{
		opts:          opts,
		stdin:         stdin,
		pending:       map[int64]chan response{},
		turns:         map[int64]*turnCall{},
		streams:       map[string]*eventStream{},
		handlerCtx:    ctx,
		cancelHandler: cancel,
		readerDone:    make(chan struct{}),
		exited:        make(chan struct{}),
	}
}

// Call sends any request and decodes its result into result (nil to discard). The typed
// methods (Ping, SessionOpen, …) are the usual way; Call is for extensions and tests.
func (c *Client) Call(ctx context.Context, method string, params any, result any) error {
	raw, err := c.request(ctx, method, params)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(raw, result)
}

func (c *Client) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var turn *turnCall
	if method == methodPrompt {
		turn = new(turnCall)
	}
	return c.requestTurn(ctx, method, params, turn)
}

// requestTurn is request; for a prompt (turn non-nil) the reader puts a TurnEnd in the
// session's events the moment the answer arrives, before anything after it on the wire.
func (c *Client) requestTurn(ctx context.Context, method string, params any, turn *turnCall) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("a4aa: %s: encode params: %w", method, err)
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.ended {
		cause := c.endCause
		c.mu.Unlock()
		return nil, peerClosed(false, cause)
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	if turn != nil {
		turn.session = sessionOf(params)
		c.turns[id] = turn
	}
	c.mu.Unlock()

	resendable := false
	if c.remote != nil {
		p, resendable = withOperationID(method, params, p)
		c.remote.beforeCall(method, params)
	}
	head := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":` + quote(method) + `,"params":`
	if resendable {
		// Sent again with the same id and operationId if the connection is lost meanwhile.
		c.remote.inFlight(id, []byte(head+string(p)+"}"))
	}
	if err := c.writeParts([]byte(head), p, []byte("}\n")); err != nil && !resendable {
		c.forget(id)
		return nil, peerClosed(false, err.Error())
	}
	select {
	case r := <-ch:
		resent := c.remote != nil && c.remote.answered(id)
		if r.err != nil {
			return nil, r.err
		}
		c.afterCall(method, params)
		if c.remote != nil {
			c.remote.tracked(method, params, r.result)
			if resent && method == "session/open" {
				// A repeated open answers as the first did but attaches nothing: attach here.
				if err := c.remote.attachOpened(ctx, r.result); err != nil {
					return nil, err
				}
			}
		}
		return r.result, nil
	case <-ctx.Done():
		if c.remote != nil {
			c.remote.answered(id)
		}
		if c.forget(id) && turn != nil {
			// Gave up without an answer: the turn's end is marked all the same.
			c.pushTurnEnd(turn, TurnEnd{Err: ctx.Err(), call: turn})
		}
		return nil, ctx.Err()
	}
}

// afterCall ends a session's event stream once a call that ends it (x-ends-event-stream:
// session/close) has succeeded.
func (c *Client) afterCall(method string, params any) {
	if id, ok := endedEventStream(method, params); ok {
		c.mu.Lock()
		s := c.streamLocked(id)
		c.mu.Unlock()
		s.finish()
	}
}

// forget drops id's pending call; false when its answer has come (or the connection ended).
func (c *Client) forget(id int64) bool {
	c.mu.Lock()
	_, was := c.pending[id]
	delete(c.pending, id)
	delete(c.turns, id)
	c.mu.Unlock()
	return was
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (c *Client) writeParts(parts ...[]byte) error {
	if c.remote != nil {
		var msg []byte
		for _, p := range parts {
			msg = append(msg, p...)
		}
		return c.remote.send(msg)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	for _, p := range parts {
		if _, err := c.stdin.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// Events is the stream of session sessionID's events, in the order the sidecar sent them.
// Events that arrive before session/open has answered are kept, not dropped. The channel is
// closed after session/close succeeds or the connection ends. Events are queued without
// bound, so a slow reader never stalls other sessions or responses.
func (c *Client) Events(sessionID string) <-chan AgentEvent {
	c.mu.Lock()
	s := c.streamLocked(sessionID)
	c.mu.Unlock()
	return s.channel()
}

func (c *Client) streamLocked(id string) *eventStream {
	s := c.streams[id]
	if s == nil {
		s = newEventStream()
		c.streams[id] = s
		if c.ended {
			s.finish()
		}
	}
	return s
}

// readLoop reads lines until EOF: no 64 KiB limit (bufio.Scanner's), and a line longer
// than MaxLineBytes is skipped without being held whole.
func (c *Client) readLoop(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	var line []byte
	skipping := false
	var readErr error
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if !skipping {
				line = append(line, chunk...)
				if len(line) > c.opts.MaxLineBytes {
					skipping, line = true, nil
				}
			}
			continue
		}
		if len(chunk) > 0 && !skipping {
			line = append(line, chunk...)
		}
		if err == nil || (err == io.EOF && len(line) > 0) {
			if skipping || len(line) > c.opts.MaxLineBytes+1 {
				fmt.Fprintf(c.stderr(), "a4aa client: skipped an incoming line over %d bytes\n", c.opts.MaxLineBytes)
			} else {
				c.handleLine(line)
			}
			line, skipping = line[:0], false
			if cap(line) > 4<<20 {
				line = nil
			}
		}
		if err != nil {
			readErr = err
			break
		}
	}
	cause := "the sidecar closed its stdout"
	if readErr != nil && readErr != io.EOF {
		cause = readErr.Error()
	}
	c.end(cause)
	close(c.readerDone)
}

func (c *Client) stderr() io.Writer {
	if c.opts.Stderr != nil {
		return c.opts.Stderr
	}
	return os.Stderr
}

// end fails every pending call with peer_closed and ends every event stream.
func (c *Client) end(cause string) {
	c.mu.Lock()
	c.ended, c.endCause = true, cause
	pending := c.pending
	c.pending = map[int64]chan response{}
	c.turns = map[int64]*turnCall{}
	streams := make([]*eventStream, 0, len(c.streams))
	for _, s := range c.streams {
		streams = append(streams, s)
	}
	c.mu.Unlock()
	c.cancelHandler()
	for _, ch := range pending {
		ch <- response{err: peerClosed(true, cause)}
	}
	for _, s := range streams {
		s.finish()
	}
}

func (c *Client) handleLine(line []byte) {
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	if len(line) == 0 {
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		fmt.Fprintf(c.stderr(), "a4aa client: ignored a line that is not a JSON object: %v\n", err)
		return
	}
	rawID, hasID := m["id"]
	methodRaw, isCall := m["method"]
	if isCall {
		method, err := decString(methodRaw)
		if err != nil {
			return
		}
		if !hasID {
			c.handleNotification(method, m["params"])
			return
		}
		go c.handleRequest(rawID, method, m["params"])
		return
	}
	id, err := strconv.ParseInt(string(rawID), 10, 64)
	if err != nil {
		fmt.Fprintf(c.stderr(), "a4aa client: ignored a response with id %s\n", rawID)
		return
	}
	c.mu.Lock()
	ch := c.pending[id]
	delete(c.pending, id)
	turn := c.turns[id]
	delete(c.turns, id)
	c.mu.Unlock()
	if ch == nil {
		return // its caller gave up (context done)
	}
	if turn != nil {
		c.pushTurnEnd(turn, turnEnd(turn, m))
	}
	if e, ok := m["error"]; ok {
		ch <- response{err: errorFromWire(e)}
	} else {
		ch <- response{result: m["result"]}
	}
}

func (c *Client) handleNotification(method string, params json.RawMessage) {
	if _, known, err := dispatchSidecar(c.handlerCtx, router{c}, method, params); err != nil {
		fmt.Fprintf(c.stderr(), "a4aa client: %s: %v\n", method, err)
	} else if !known {
		fmt.Fprintf(c.stderr(), "a4aa client: ignored unknown notification %s\n", method)
	}
}

func (c *Client) handleRequest(id json.RawMessage, method string, params json.RawMessage) {
	result, known, err := dispatchSidecar(c.handlerCtx, router{c}, method, params)
	var msg []byte
	switch {
	case !known:
		msg = errorResponse(id, RPCCodeMethodNotFound, "method not found: "+method)
	case err != nil:
		var pe *paramsError
		code := RPCCodeAdapterError
		if errors.As(err, &pe) {
			code = RPCCodeInvalidParams
		}
		msg = errorResponse(id, code, err.Error())
	default:
		b, merr := json.Marshal(result)
		if merr != nil {
			msg = errorResponse(id, RPCCodeInternalError, merr.Error())
		} else {
			msg = []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + string(b) + "}\n")
		}
	}
	_ = c.writeParts(msg)
}

func errorResponse(id json.RawMessage, code int, message string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":` + strconv.Itoa(code) + `,"message":` + quote(message) + "}}\n")
}

// router is the client's SidecarHandler.
type router struct{ c *Client }

func (r router) SessionEvent(p SessionEventParams) {
	// Dial'ed: an event already delivered (before a reconnection) is not delivered again.
	if r.c.remote != nil && !r.c.remote.fresh(p.SessionID, p.Seq) {
		return
	}
	r.c.mu.Lock()
	s := r.c.streamLocked(p.SessionID)
	r.c.mu.Unlock()
	s.push(p.Event)
}

// PermissionSettled: another connection decided a request this one was asked (R-REMOTE-5);
// nothing waits on it here.
func (r router) PermissionSettled(PermissionSettledParams) {}

func (r router) PermissionRequest(ctx context.Context, p PermissionRequest) (res PermissionResponse, err error) {
	h := r.c.opts.Permission
	if h == nil {
		// An error answer: the sidecar fails it closed as its policy (decidedBy "policy"), not as a host choice.
		r.c.noHandlerOnce.Do(func() {
			fmt.Fprintln(r.c.stderr(), "a4aa client: no Permission handler: permission requests fail closed (cancelled)")
		})
		return nil, errors.New("the host has no permission handler")
	}
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(r.c.stderr(), "a4aa client: the permission handler panicked: %v\n", v)
			res, err = PermissionCancelled{}, nil
		}
	}()
	res, err = h(ctx, p)
	if err == nil && res == nil {
		res = PermissionCancelled{}
	}
	return res, err
}

// Close ends the connection the way the protocol says: it closes the sidecar's stdin
// (EOF), which closes every session and ends the sidecar, and waits for it to exit (killing
// it after CloseTimeout). It returns nil when the sidecar exited with status 0, else an
// *exec.ExitError (or the kill's error). Calls still pending fail with peer_closed.
func (c *Client) Close() error {
	if c.remote != nil {
		// Dial'ed: the connection closes; the sessions stay on the sidecar, detached, until
		// its --detach-ttl (close them first to end them now).
		c.closeOnce.Do(c.remote.close)
		select {
		case <-c.exited:
		case <-time.After(c.opts.CloseTimeout):
		}
		return nil
	}
	c.closeOnce.Do(func() {
		c.wmu.Lock()
		_ = c.stdin.Close()
		c.wmu.Unlock()
		select {
		case <-c.exited:
		case <-time.After(c.opts.CloseTimeout):
			if c.cmd != nil && c.cmd.Process != nil {
				_ = c.cmd.Process.Kill()
			}
			<-c.exited
			if c.exitErr == nil {
				c.exitErr = errors.New("a4aa: the sidecar did not exit in time and was killed")
			}
		}
	})
	return c.exitErr
}

// ExitCode is the sidecar's exit status once it has exited (-1 before, or when it was
// killed by a signal or not started by this client).
func (c *Client) ExitCode() int {
	select {
	case <-c.exited:
		if c.cmd != nil && c.cmd.ProcessState != nil {
			return c.cmd.ProcessState.ExitCode()
		}
	default:
	}
	return -1
}

// Done is closed when the connection has ended (the sidecar exited or closed stdout).
func (c *Client) Done() <-chan struct{} { return c.exited }
