package a4aa

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// repoRoot is the a4aa checkout this module sits in (clients/go → ../..).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// distDir is A4AA_DIST or the checkout's dist/ (npm run build).
func distDir(t testing.TB) string {
	if d := os.Getenv("A4AA_DIST"); d != "" {
		return d
	}
	return filepath.Join(repoRoot(t), "dist")
}

func nodePath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	return p
}

// sidecarCommand is A4AA_SIDECAR (split on spaces) or the built sidecar of this checkout.
func sidecarCommand(t testing.TB) []string {
	t.Helper()
	if s := os.Getenv("A4AA_SIDECAR"); s != "" {
		return strings.Fields(s)
	}
	main := filepath.Join(distDir(t), "src", "cli", "main.js")
	if _, err := os.Stat(main); err != nil {
		t.Fatalf("%s is missing: run npm run build first", main)
	}
	return []string{nodePath(t), main, "serve"}
}

// exampleSpec runs the bundled example ACP agent.
func exampleSpec(t testing.TB) AcpAgentSpec {
	t.Helper()
	agent := filepath.Join(distDir(t), "src", "examples", "example-agent.js")
	if _, err := os.Stat(agent); err != nil {
		t.Fatalf("%s is missing: run npm run build first", agent)
	}
	return AcpAgentSpec{
		ID: "example",
		Command: Command{
			Program: nodePath(t),
			Args:    []string{agent},
			Env:     SanitizedEnvPolicy{Inherit: []string{"PATH", "HOME"}},
		},
	}
}

// startSidecar starts a client; the sidecar is closed (or killed) when the test ends.
func startSidecar(t testing.TB, opts Options) *Client {
	t.Helper()
	if opts.Command == nil {
		opts.Command = sidecarCommand(t)
	}
	if opts.Stderr == nil {
		opts.Stderr = newTestLog(t)
	}
	if opts.CloseTimeout == 0 {
		opts.CloseTimeout = 20 * time.Second
	}
	c, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testLog keeps the sidecar's stderr and prints its tail only when the test fails.
type testLog struct {
	mu  sync.Mutex
	buf []byte
}

func newTestLog(t testing.TB) *testLog {
	l := &testLog{}
	t.Cleanup(func() {
		if t.Failed() {
			l.mu.Lock()
			defer l.mu.Unlock()
			tail := l.buf
			if len(tail) > 8000 {
				tail = tail[len(tail)-8000:]
			}
			t.Logf("sidecar stderr:\n%s", tail)
		}
	})
	return l
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.buf = append(l.buf, p...)
	l.mu.Unlock()
	return len(p), nil
}

// collect reads a session's events until its channel closes.
func collect(ch <-chan AgentEvent) <-chan []AgentEvent {
	done := make(chan []AgentEvent, 1)
	go func() {
		var all []AgentEvent
		for ev := range ch {
			all = append(all, ev)
		}
		done <- all
	}()
	return done
}

func waitEvents(t testing.TB, done <-chan []AgentEvent) []AgentEvent {
	t.Helper()
	select {
	case evs := <-done:
		return evs
	case <-time.After(30 * time.Second):
		t.Fatal("the event stream did not end")
		return nil
	}
}

func openExample(t testing.TB, c *Client, opts *SessionOptions) *OpenResult {
	t.Helper()
	open, err := c.SessionOpen(testCtx(t), SessionOpenParams{Spec: exampleSpec(t), Cwd: Ptr(repoRoot(t)), Options: opts})
	if err != nil {
		t.Fatalf("session/open: %v", err)
	}
	return open
}

// echoCliSpec is the generic cli driver on the echo fixture (test/fixtures/cli/echo.mjs): each
// turn answers with the prompt it was given.
func echoCliSpec(t testing.TB) CliAgentSpec {
	t.Helper()
	return CliAgentSpec{
		ID:      "echo",
		Driver:  CliDriverGeneric,
		Command: Command{Program: nodePath(t), Args: []string{filepath.Join(repoRoot(t), "test", "fixtures", "cli", "echo.mjs")}, Env: SanitizedEnvPolicy{Inherit: []string{"PATH", "HOME"}}},
	}
}
