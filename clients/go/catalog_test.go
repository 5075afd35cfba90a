package a4aa

import (
	"testing"
)

// The agents catalog (1.2): agents/list, and session/open by agent id as naturally as by spec.
func TestAgentsCatalog(t *testing.T) {
	c := startSidecar(t, Options{})
	list, err := c.AgentsList(testCtx(t), AgentsListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var example *AgentEntry
	for i := range list.Agents {
		if list.Agents[i].ID == "example" {
			example = &list.Agents[i]
		}
	}
	if example == nil || !example.Installed || example.Source != "builtin" || len(example.Lanes) != 1 {
		t.Fatalf("the bundled example agent is listed and installed: %+v", example)
	}
	open, err := c.SessionOpen(testCtx(t), SessionOpenParams{Agent: &AgentSelection{ID: "example"}})
	if err != nil {
		t.Fatal(err)
	}
	spec, ok := open.Spec.(AcpAgentSpec)
	if !ok || spec.ID != "example" {
		t.Fatalf("the open result carries the resolved spec: %#v", open.Spec)
	}
	if _, err := c.SessionClose(testCtx(t), SessionCloseParams{SessionID: open.SessionID}); err != nil {
		t.Fatal(err)
	}
	_, err = c.SessionOpen(testCtx(t), SessionOpenParams{Agent: &AgentSelection{ID: "no-such-agent"}})
	if !IsCode(err, ErrorCodeUnknownAgent) {
		t.Fatalf("an unknown id is unknown_agent: %v", err)
	}
}
