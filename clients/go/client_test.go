package a4aa

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// kinds is the event types with runs of the same type collapsed: the turn's shape.
func kinds(evs []AgentEvent) []string {
	var out []string
	for _, ev := range evs {
		if len(out) == 0 || out[len(out)-1] != ev.Type() {
			out = append(out, ev.Type())
		}
	}
	return out
}

func TestPing(t *testing.T) {
	c := startSidecar(t, Options{})
	res, err := c.Ping(testCtx(t), PingParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Protocol() != "a4aa.v1" || res.Version == "" {
		t.Fatalf("ping: %+v", res)
	}
	doc, err := c.RpcDiscover(testCtx(t), RpcDiscoverParams{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Openrpc == "" || len(doc.Methods) == 0 || doc.Extra["components"] == nil {
		t.Fatalf("rpc.discover: openrpc %q, %d methods, extra %d", doc.Openrpc, len(doc.Methods), len(doc.Extra))
	}
}

func TestPromptStreamsEventsInOrderAndHandlerAnswersPermission(t *testing.T) {
	var asked []PermissionRequest
	var mu sync.Mutex
	c := startSidecar(t, Options{Permission: func(ctx context.Context, req PermissionRequest) (PermissionResponse, error) {
		mu.Lock()
		asked = append(asked, req)
		mu.Unlock()
		return PermissionSelected{Selected: "allow"}, nil
	}})
	open := openExample(t, c, nil)
	if open.Capabilities.Lane != LaneAcp || open.AgentInfo == nil || open.AgentInfo.Name != "a4aa-example-agent" {
		t.Fatalf("open: %+v", open)
	}
	events := collect(c.Events(open.SessionID))
	out, err := c.SessionPrompt(testCtx(t), Prompt(open.SessionID, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if out.StopReason != StopReasonEndTurn || out.Text == nil || !strings.Contains(*out.Text, "it printed hello") {
		t.Fatalf("outcome: %+v", out)
	}
	closed, err := c.SessionClose(testCtx(t), SessionCloseParams{SessionID: open.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	// R-SUP-6: the example agent leaves on stdin EOF: one process ended, none killed.
	if closed.Processes.Ended != 1 || closed.Processes.Killed != 0 {
		t.Fatalf("close counts: %+v", closed.Processes)
	}
	evs := waitEvents(t, events)
	got := strings.Join(kinds(evs), " ")
	want := "thoughtChunk plan toolCall toolCallUpdate toolCall permissionResolved toolCallUpdate messageChunk usage turnEnd"
	if got != want {
		t.Fatalf("event order:\n got %s\nwant %s", got, want)
	}
	var text strings.Builder
	for _, ev := range evs {
		switch e := ev.(type) {
		case MessageChunkEvent:
			text.WriteString(e.Text)
		case PermissionResolvedEvent:
			if e.Outcome != PermissionResolvedEventOutcomeSelected || e.OptionID == nil || *e.OptionID != "allow" || e.DecidedBy != PermissionResolvedEventDecidedByHost {
				t.Fatalf("permissionResolved: %+v", e)
			}
		case ToolCallUpdateEvent:
			if e.ToolCallID == "run-1" && (e.Status == nil || *e.Status != ToolCallStatusCompleted) {
				t.Fatalf("run-1 should have run: %+v", e)
			}
		}
	}
	if text.String() != *out.Text {
		t.Fatalf("message chunks %q != outcome text %q", text.String(), *out.Text)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0].ToolCallID != "run-1" || asked[0].Kind != ToolKindExecute || len(asked[0].Options) != 3 {
		t.Fatalf("permission requests: %+v", asked)
	}
}

func TestPermissionWithoutHandlerFailsClosed(t *testing.T) {
	c := startSidecar(t, Options{})
	open := openExample(t, c, nil)
	events := collect(c.Events(open.SessionID))
	out, err := c.SessionPrompt(testCtx(t), Prompt(open.SessionID, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(*out.Text, "I did not run the command") {
		t.Fatalf("outcome: %q", *out.Text)
	}
	if _, err := c.SessionClose(testCtx(t), SessionCloseParams{SessionID: open.SessionID}); err != nil {
		t.Fatal(err)
	}
	resolved := 0
	for _, ev := range waitEvents(t, events) {
		if e, ok := ev.(PermissionResolvedEvent); ok {
			resolved++
			// Issue 14: a missing handler is the policy failing closed, not a host choice.
			if e.Outcome != PermissionResolvedEventOutcomeCancelled || e.DecidedBy != PermissionResolvedEventDecidedByPolicy {
				t.Fatalf("permissionResolved: %+v", e)
			}
		}
		if e, ok := ev.(ToolCallUpdateEvent); ok && e.ToolCallID == "run-1" && *e.Status != ToolCallStatusFailed {
			t.Fatalf("run-1 ran without permission: %+v", e)
		}
	}
	if resolved != 1 {
		t.Fatalf("%d permissionResolved events", resolved)
	}
}

func TestCancelDuringTurn(t *testing.T) {
	c := startSidecar(t, Options{})
	open := openExample(t, c, nil)
	events := c.Events(open.SessionID)
	type result struct {
		out *TurnOutcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := c.SessionPrompt(testCtx(t), Prompt(open.SessionID, "/slow 100"))
		done <- result{out, err}
	}()
	select {
	case ev := <-events:
		if _, ok := ev.(MessageChunkEvent); !ok {
			t.Fatalf("first event: %#v", ev)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no event from the slow turn")
	}
	// A second prompt while the turn runs: turn_in_progress, retryable.
	_, err := c.SessionPrompt(testCtx(t), Prompt(open.SessionID, "again"))
	var e *Error
	if !errors.As(err, &e) || e.Code != ErrorCodeTurnInProgress || !e.Retryable || e.Stage != ErrorStagePrompt {
		t.Fatalf("second prompt: %v", err)
	}
	if _, err := c.SessionCancel(testCtx(t), SessionCancelParams{SessionID: open.SessionID}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.out.StopReason != StopReasonCancelled {
			t.Fatalf("cancelled prompt: %+v %v", r.out, r.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the prompt did not settle after cancel")
	}
}

func TestCloseEndsEventsAndIsIdempotent(t *testing.T) {
	c := startSidecar(t, Options{})
	open := openExample(t, c, nil)
	events := collect(c.Events(open.SessionID))
	for i := 0; i < 2; i++ {
		if _, err := c.SessionClose(testCtx(t), SessionCloseParams{SessionID: open.SessionID}); err != nil {
			t.Fatalf("close #%d: %v", i+1, err)
		}
	}
	waitEvents(t, events)
	_, err := c.SessionPrompt(testCtx(t), Prompt(open.SessionID, "x"))
	if !IsCode(err, ErrorCodeUnknownSession) {
		t.Fatalf("prompt after close: %v", err)
	}
}

func TestErrorKinds(t *testing.T) {
	c := startSidecar(t, Options{})
	spec := func(edit func(*AcpAgentSpec)) AgentSpec {
		s := exampleSpec(t)
		edit(&s)
		return s
	}
	cases := []struct {
		name    string
		call    func() error
		rpcCode int
		code    ErrorCode
		stage   ErrorStage
	}{
		{"invalid_params", func() error {
			_, err := c.SessionOpen(testCtx(t), SessionOpenParams{Spec: nil})
			return err
		}, -32602, ErrorCodeInvalidParams, ErrorStageOpen},
		{"unknown_session", func() error {
			_, err := c.SessionPrompt(testCtx(t), Prompt("no-such-session", "x"))
			return err
		}, -32001, ErrorCodeUnknownSession, ErrorStagePrompt},
		{"unsupported_selector", func() error {
			_, err := c.SessionOpen(testCtx(t), SessionOpenParams{Spec: exampleSpec(t), Options: &SessionOptions{Mode: Ptr("no-such-mode")}})
			return err
		}, -32000, ErrorCodeUnsupportedSelector, ErrorStageOpen},
		{"env_refused", func() error {
			_, err := c.SessionOpen(testCtx(t), SessionOpenParams{Spec: spec(func(s *AcpAgentSpec) {
				s.Command.Env = SanitizedEnvPolicy{Inherit: []string{"SECRET_TOKEN"}}
			})})
			return err
		}, -32000, ErrorCodeEnvRefused, ErrorStageSpawn},
		{"spawn_failed", func() error {
			_, err := c.SessionOpen(testCtx(t), SessionOpenParams{Spec: spec(func(s *AcpAgentSpec) { s.Command.Program = "/no/such/agent" })})
			return err
		}, -32000, ErrorCodeSpawnFailed, ErrorStageSpawn},
		{"method_not_found", func() error { return c.Call(testCtx(t), "no/such/method", map[string]any{}, nil) },
			-32601, ErrorCodeMethodNotFound, ErrorStageTransport},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want *Error, got %v", err)
			}
			if e.RPCCode != tc.rpcCode || e.Code != tc.code || e.Stage != tc.stage || e.UncertainEffect {
				t.Fatalf("got rpc %d %s stage %s uncertain %v (%v)", e.RPCCode, e.Code, e.Stage, e.UncertainEffect, e)
			}
		})
	}
}

func TestPeerClosedWhenSidecarDies(t *testing.T) {
	c := startSidecar(t, Options{})
	open := openExample(t, c, nil)
	done := make(chan error, 1)
	go func() {
		_, err := c.SessionPrompt(testCtx(t), Prompt(open.SessionID, "/slow 200"))
		done <- err
	}()
	<-c.Events(open.SessionID) // the turn is running
	_ = c.cmd.Process.Kill()
	select {
	case err := <-done:
		var e *Error
		if !errors.As(err, &e) || e.Code != ErrorCodePeerClosed || e.Stage != ErrorStageTransport || !e.UncertainEffect {
			t.Fatalf("pending prompt: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the pending call did not fail")
	}
	if _, err := c.Ping(testCtx(t), PingParams{}); !IsCode(err, ErrorCodePeerClosed) {
		t.Fatalf("call after the end: %v", err)
	}
	var exit *exec.ExitError
	if err := c.Close(); !errors.As(err, &exit) {
		t.Fatalf("close of a killed sidecar: %v", err)
	}
}

func TestTenMiBPrompt(t *testing.T) {
	c := startSidecar(t, Options{})
	open := openExample(t, c, nil)
	text := "/size " + strings.Repeat("x", 10<<20)
	out, err := c.SessionPrompt(testCtx(t), Prompt(open.SessionID, text))
	if err != nil {
		t.Fatal(err)
	}
	if want := "I received " + strconv.Itoa(len(text)) + " characters."; out.Text == nil || *out.Text != want {
		t.Fatalf("outcome %v, want %q", out.Text, want)
	}
}

func TestEOFShutdown(t *testing.T) {
	c := startSidecar(t, Options{})
	open := openExample(t, c, nil)
	events := collect(c.Events(open.SessionID))
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if c.ExitCode() != 0 {
		t.Fatalf("exit code %d", c.ExitCode())
	}
	waitEvents(t, events)
	if _, err := c.Ping(testCtx(t), PingParams{}); !IsCode(err, ErrorCodePeerClosed) {
		t.Fatalf("ping after close: %v", err)
	}
	t.Logf("EOF shutdown with one open session took %v", time.Since(start))
}

func TestEventsBeforeOpenAnswerAreBuffered(t *testing.T) {
	// The sidecar answers session/open after it relays what the agent says while starting;
	// a stream asked for only afterwards still gets those events.
	c := startSidecar(t, Options{})
	spec := exampleSpec(t)
	spec.Command.Args = []string{"-e", `process.stdin.on("data", () => process.stdout.write(JSON.stringify({jsonrpc: "2.0", method: "early/hello", params: {}}) + "\n"))`}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	go func() { _, _ = c.SessionOpen(ctx, SessionOpenParams{Spec: spec}) }()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		var id string
		for k := range c.streams {
			id = k
		}
		c.mu.Unlock()
		if id != "" {
			ev := <-c.Events(id)
			if raw, ok := ev.(RawEvent); !ok || raw.Source != RawEventSourceAcp {
				t.Fatalf("buffered event: %#v", ev)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no event arrived for the opening session")
}
