// Command host drives the bundled example agent through `a4aa serve` (found by a4aa.SidecarCommand): go run ./examples/host
package main

import (
	"context"
	"fmt"
	"log"

	a4aa "github.com/a4aa/a4aa/clients/go"
)

func main() {
	ctx := context.Background()
	allow := func(ctx context.Context, req a4aa.PermissionRequest) (a4aa.PermissionResponse, error) {
		return a4aa.PermissionSelected{Selected: req.Options[0].OptionID}, nil
	}
	client := must(a4aa.Start(a4aa.Options{Permission: allow}))
	// The bundled agent; or e.g. {ID: "claude-code", Credentials: a4aa.EnvLiterals{"ANTHROPIC_API_KEY": key}}
	open := must(client.SessionOpen(ctx, a4aa.SessionOpenParams{Agent: &a4aa.AgentSelection{ID: "example"}}))
	out := must(client.SessionPrompt(ctx, a4aa.Prompt(open.SessionID, "Hello!")))
	must(client.SessionClose(ctx, a4aa.SessionCloseParams{SessionID: open.SessionID}))
	for ev := range client.Events(open.SessionID) { // in the order sent; ends after the close
		switch e := ev.(type) {
		case a4aa.MessageChunkEvent:
			fmt.Print(e.Text)
		case a4aa.ToolCallEvent:
			fmt.Printf("[%s: %s]\n", e.Kind, e.Title)
		}
	}
	fmt.Printf("\nstop reason: %s\n", out.StopReason)
	must(0, client.Close()) // EOF: the sidecar closes every session and exits 0
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
