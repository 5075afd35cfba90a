package a4aa

import (
	"strings"
	"testing"
	"time"
)

func textOf(evs []AgentEvent) string {
	var b strings.Builder
	for _, ev := range evs {
		if m, ok := ev.(MessageChunkEvent); ok {
			b.WriteString(m.Text)
		}
	}
	return b.String()
}

func drain(t *testing.T, ch <-chan AgentEvent) []AgentEvent {
	t.Helper()
	var all []AgentEvent
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return all
			}
			all = append(all, ev)
		case <-timeout:
			t.Fatal("the prompt stream did not end")
		}
	}
}

func TestPromptStreamOnAcpAndCliLanes(t *testing.T) {
	c := startSidecar(t, Options{})
	root := repoRoot(t)
	echo := echoCliSpec(t)
	lanes := []struct {
		open         SessionOpenParams
		prompt, want string
	}{
		{SessionOpenParams{Agent: &AgentSelection{ID: "example"}, Cwd: Ptr(root)}, "/echo hi there", "hi there"},
		{SessionOpenParams{Spec: echo, Cwd: Ptr(root)}, "ping", "echo: ping"},
	}
	for _, lane := range lanes {
		open, err := c.SessionOpen(testCtx(t), lane.open)
		if err != nil {
			t.Fatal(err)
		}
		for turn := 0; turn < 2; turn++ {
			items := drain(t, c.PromptStream(testCtx(t), Prompt(open.SessionID, lane.prompt)))
			last, ok := items[len(items)-1].(TurnEnd)
			if !ok || last.Err != nil || last.Outcome == nil {
				t.Fatalf("the stream does not end with an outcome: %+v", items[len(items)-1])
			}
			for _, ev := range items[:len(items)-1] {
				if _, isEnd := ev.(TurnEnd); isEnd {
					t.Fatal("a TurnEnd before the last item")
				}
			}
			if got := textOf(items); !strings.Contains(got, lane.want) || last.Outcome.Text == nil || !strings.Contains(*last.Outcome.Text, lane.want) {
				t.Fatalf("text %q, outcome %+v", got, last.Outcome)
			}
		}
		if _, err := c.SessionClose(testCtx(t), SessionCloseParams{SessionID: open.SessionID}); err != nil {
			t.Fatal(err)
		}
	}
	items := drain(t, c.PromptStream(testCtx(t), Prompt("no-such-session", "x")))
	if te, ok := items[len(items)-1].(TurnEnd); !ok || !IsCode(te.Err, "unknown_session") {
		t.Fatalf("a failed prompt: %+v", items)
	}
}

func TestEventsMarkEachTurnsEnd(t *testing.T) {
	c := startSidecar(t, Options{})
	open, err := c.SessionOpen(testCtx(t), SessionOpenParams{Agent: &AgentSelection{ID: "example"}, Cwd: Ptr(repoRoot(t))})
	if err != nil {
		t.Fatal(err)
	}
	events := collect(c.Events(open.SessionID))
	var outs []*TurnOutcome
	for i := 0; i < 3; i++ {
		out, err := c.SessionPrompt(testCtx(t), Prompt(open.SessionID, "/echo turn-"+string(rune('0'+i))))
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	if _, err := c.SessionClose(testCtx(t), SessionCloseParams{SessionID: open.SessionID}); err != nil {
		t.Fatal(err)
	}
	turns := []string{""}
	var ends []TurnEnd
	for _, ev := range waitEvents(t, events) {
		if te, ok := ev.(TurnEnd); ok {
			ends = append(ends, te)
			turns = append(turns, "")
		} else {
			turns[len(turns)-1] += textOf([]AgentEvent{ev})
		}
	}
	if strings.Join(turns, "|") != "turn-0|turn-1|turn-2|" || len(ends) != 3 {
		t.Fatalf("turns %q", turns)
	}
	for i, te := range ends {
		if te.Err != nil || te.Outcome == nil || *te.Outcome.Text != *outs[i].Text {
			t.Fatalf("marker %d: %+v", i, te)
		}
	}
}
