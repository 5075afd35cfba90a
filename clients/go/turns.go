package a4aa

import (
	"context"
	"encoding/json"
)

const methodPrompt = "session/prompt"

// TurnEnd marks the end of a turn. It is not a wire event: the client puts it in the
// session's Events right after session/prompt answers (every event of a turn precedes its
// answer on the wire, R-CORE-6). Outcome is the prompt's result; a prompt that failed (busy,
// unknown session, context done, connection ended) gets one too, with Err set and no Outcome:
// no turn ran.
type TurnEnd struct {
	Outcome *TurnOutcome
	Err     error
	call    *turnCall
}

// Type is "turnEnd".
func (TurnEnd) Type() string  { return "turnEnd" }
func (TurnEnd) isAgentEvent() {}

// turnCall is one prompt call: its session, and the identity its TurnEnd carries.
type turnCall struct{ session string }

func sessionOf(params any) string {
	switch p := params.(type) {
	case SessionPromptParams:
		return p.SessionID
	case *SessionPromptParams:
		return p.SessionID
	}
	var probe struct {
		SessionID string `json:"sessionId"`
	}
	if b, err := json.Marshal(params); err == nil {
		_ = json.Unmarshal(b, &probe)
	}
	return probe.SessionID
}

func turnEnd(turn *turnCall, m map[string]json.RawMessage) TurnEnd {
	if e, ok := m["error"]; ok {
		return TurnEnd{Err: errorFromWire(e), call: turn}
	}
	out, err := decodeTurnOutcome(m["result"])
	if err != nil {
		return TurnEnd{Err: err, call: turn}
	}
	return TurnEnd{Outcome: &out, call: turn}
}

func (c *Client) pushTurnEnd(turn *turnCall, te TurnEnd) {
	c.mu.Lock()
	s := c.streamLocked(turn.session)
	c.mu.Unlock()
	s.push(te)
}

// PromptStream runs session/prompt as one stream: the session's events up to this turn's
// end, then its TurnEnd (Outcome, or Err when the prompt failed); then the channel closes.
// It reads Events(params.SessionID): read that nowhere else meanwhile. When ctx is done the
// stream ends with a TurnEnd whose Err is ctx.Err() (if there is a reader to take it).
func (c *Client) PromptStream(ctx context.Context, params SessionPromptParams) <-chan AgentEvent {
	out := make(chan AgentEvent, 1)
	turn := &turnCall{}
	done := make(chan error, 1)
	events := c.Events(params.SessionID)
	go func() {
		_, err := c.requestTurn(ctx, methodPrompt, params, turn)
		done <- err
	}()
	go func() {
		defer close(out)
		for {
			select {
			case ev, ok := <-events:
				if !ok { // the stream ended first (session closed, connection ended)
					err := <-done
					if err == nil {
						err = peerClosed(true, "the session's event stream ended before the prompt's end")
					}
					out <- TurnEnd{Err: err, call: turn}
					return
				}
				if te, isEnd := ev.(TurnEnd); isEnd {
					if te.call != turn {
						continue // another call's prompt
					}
					select {
					case out <- te:
					case <-ctx.Done():
					}
					return
				}
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				select {
				case out <- TurnEnd{Err: ctx.Err(), call: turn}:
				default:
				}
				return
			}
		}
	}()
	return out
}
