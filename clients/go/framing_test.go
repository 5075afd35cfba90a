package a4aa

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// A 64 MiB line each way through Connect, against an in-process peer that echoes params.
func TestLine64MiBInProcess(t *testing.T) {
	toPeer, clientOut := io.Pipe()
	peerOut, toClient := io.Pipe()
	go func() {
		r := bufio.NewReaderSize(toPeer, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				_ = toClient.Close()
				return
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(line, &req); err != nil {
				t.Errorf("peer: %v", err)
				return
			}
			_, _ = toClient.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + string(req.Params) + "}\n"))
		}
	}()
	c := Connect(peerOut, clientOut, Options{})
	defer c.Close()
	text := strings.Repeat("a", 64<<20-64)
	start := time.Now()
	var got struct{ Text string }
	if err := c.Call(context.Background(), "echo", map[string]string{"text": text}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Text != text {
		t.Fatalf("echo: %d bytes back", len(got.Text))
	}
	t.Logf("64 MiB line round trip in process: %v", time.Since(start))
}

// A line of almost 64 MiB (the sidecar's limit) each way through a real a4aa serve and the
// example agent: the prompt goes out as one line, the echo comes back as one event and in
// the outcome.
func TestLine64MiBThroughSidecar(t *testing.T) {
	c := startSidecar(t, Options{})
	open := openExample(t, c, nil)
	events := collect(c.Events(open.SessionID))
	word := strings.Repeat("z", 64<<20-1024)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	out, err := c.SessionPrompt(ctx, Prompt(open.SessionID, "/echo "+word))
	if err != nil {
		t.Fatal(err)
	}
	if out.Text == nil || *out.Text != word {
		t.Fatalf("outcome text is not the echo")
	}
	elapsed := time.Since(start)
	if _, err := c.SessionClose(ctx, SessionCloseParams{SessionID: open.SessionID}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range waitEvents(t, events) {
		if m, ok := ev.(MessageChunkEvent); ok && m.Text == word {
			found = true
		}
	}
	if !found {
		t.Fatal("no messageChunk event carried the whole echo")
	}
	t.Logf("a %d-byte prompt echoed through a4aa serve in %v", len(word)+6, elapsed)
}
