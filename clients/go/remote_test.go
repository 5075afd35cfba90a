package a4aa

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

const testToken = "go-remote-token-0123456789"

// listeningSidecar starts `a4aa serve --listen ws://127.0.0.1:0` with a token file and
// returns its URL; it is stopped (SIGTERM, then killed) when the test ends.
func listeningSidecar(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte("gohost:"+testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	argv := append(sidecarCommand(t), "--listen", "ws://127.0.0.1:0", "--auth-token-file", tokens)
	cmd := exec.Command(argv[0], argv[1:]...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	log := newTestLog(t)
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`listening on (ws://\S+)`)
		for sc.Scan() {
			_, _ = log.Write(append(sc.Bytes(), '\n'))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	select {
	case u := <-urls:
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("the sidecar did not say where it listens")
		return ""
	}
}

// cutProxy forwards TCP to target; cut() destroys every live connection (a dropped network).
type cutProxy struct {
	ln       net.Listener
	mu       sync.Mutex
	live     map[net.Conn]bool
	accepted int
}

func newCutProxy(t *testing.T, target string) (*cutProxy, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, live: map[net.Conn]bool{}}
	host := strings.TrimPrefix(target, "ws://")
	if i := strings.Index(host, "/"); i >= 0 {
		host = host[:i]
	}
	go func() {
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", host)
			if err != nil {
				down.Close()
				continue
			}
			p.mu.Lock()
			p.accepted++
			p.live[down], p.live[up] = true, true
			p.mu.Unlock()
			pipe := func(a, b net.Conn) {
				_, _ = io.Copy(a, b)
				a.Close()
				b.Close()
				p.mu.Lock()
				delete(p.live, a)
				delete(p.live, b)
				p.mu.Unlock()
			}
			go pipe(down, up)
			go pipe(up, down)
		}
	}()
	t.Cleanup(func() { ln.Close(); p.cut() })
	return p, "ws://" + ln.Addr().String()
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.live {
		c.Close()
	}
}

func allow(_ context.Context, req PermissionRequest) (PermissionResponse, error) {
	for _, o := range req.Options {
		if o.Kind == PermissionOptionKindAllowOnce {
			return PermissionSelected{Selected: o.OptionID}, nil
		}
	}
	return PermissionCancelled{}, nil
}

func dialTest(t *testing.T, url string, opts DialOptions) *Client {
	t.Helper()
	if opts.Token == "" {
		opts.Token = testToken
	}
	if opts.Log == nil {
		opts.Log = newTestLog(t)
	}
	opts.Reconnect = ReconnectOptions{InitialDelay: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond, MaxAttempts: 50}
	c, err := Dial(testCtx(t), url, opts)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestRRemote10DialRunsATurnWithAPermission(t *testing.T) {
	url := listeningSidecar(t)
	c := dialTest(t, url, DialOptions{Permission: allow})
	ctx := testCtx(t)
	open := openExample(t, c, nil)
	out, err := c.SessionPrompt(ctx, SessionPromptParams{SessionID: open.SessionID, Text: "check the shell"})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if out.StopReason != StopReasonEndTurn || out.Text == nil || !strings.Contains(*out.Text, "it printed hello") {
		t.Fatalf("outcome: %+v", out)
	}
	if _, err := c.SessionClose(ctx, SessionCloseParams{SessionID: open.SessionID}); err != nil {
		t.Fatal(err)
	}
}

func TestRRemote10AWrongTokenFailsAtOnceWithoutRetrying(t *testing.T) {
	url := listeningSidecar(t)
	start := time.Now()
	_, err := Dial(testCtx(t), url, DialOptions{Token: "not-the-token-0123456789", Log: io.Discard})
	var he *HandshakeError
	if !errors.As(err, &he) || he.Status != 401 {
		t.Fatalf("want a HandshakeError 401, got %v", err)
	}
	if !strings.Contains(err.Error(), "refused the token") || time.Since(start) > 5*time.Second {
		t.Fatalf("%v (after %v)", err, time.Since(start))
	}
}

func TestRRemote10CutsMidTurnLoseNothing(t *testing.T) {
	url := listeningSidecar(t)
	proxy, purl := newCutProxy(t, url)
	c := dialTest(t, purl, DialOptions{Permission: allow})
	ctx := testCtx(t)
	open := openExample(t, c, nil)
	other := openExample(t, c, nil)

	// A prompt sent with Call carries no operationId: a cut while it runs fails it.
	bare := make(chan error, 1)
	go func() {
		bare <- c.Call(ctx, "session/prompt", map[string]any{"sessionId": other.SessionID, "text": "/slow 40"}, nil)
	}()

	var seen []AgentEvent
	n := 0
	for ev := range c.PromptStream(ctx, SessionPromptParams{SessionID: open.SessionID, Text: "/slow 30"}) {
		seen = append(seen, ev)
		if m, ok := ev.(MessageChunkEvent); ok && strings.HasPrefix(m.Text, "chunk ") {
			n++
			if n == 5 || n == 15 || n == 25 {
				proxy.cut()
			}
		}
	}
	end, ok := seen[len(seen)-1].(TurnEnd)
	if !ok || end.Err != nil || end.Outcome == nil || end.Outcome.StopReason != StopReasonEndTurn {
		t.Fatalf("the turn's end: %+v", seen[len(seen)-1])
	}
	var want strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&want, "chunk %d ", i)
	}
	if got := textOf(seen); !strings.Contains(got, want.String()) || strings.Count(got, "chunk 1 ") != 1 {
		t.Fatalf("every chunk once, in order:\n%s", got)
	}
	if c.Reconnects() < 3 {
		t.Fatalf("reconnected %d times, want 3", c.Reconnects())
	}
	// What the application read is the journal, event for event.
	h, err := c.SessionHistory(ctx, SessionHistoryParams{SessionID: open.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	var journal []AgentEvent
	for _, e := range h.Events {
		journal = append(journal, e.Event)
	}
	if textOf(journal) != textOf(seen) || len(journal) != len(seen)-1 {
		t.Fatalf("read %d events, the journal has %d", len(seen)-1, len(journal))
	}

	select {
	case err := <-bare:
		var e *Error
		if !errors.As(err, &e) || e.Code != ErrorCodePeerClosed || !e.UncertainEffect {
			t.Fatalf("the bare prompt: want peer_closed with UncertainEffect, got %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the bare prompt never ended")
	}
	if _, err := c.SessionCancel(ctx, SessionCancelParams{SessionID: other.SessionID}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{open.SessionID, other.SessionID} {
		if _, err := c.SessionClose(ctx, SessionCloseParams{SessionID: id}); err != nil {
			t.Fatal(err)
		}
	}
}
