package a4aa

import (
	"encoding/json"
	"testing"
)

func TestEnvConstructorsEncodeAsThePolicy(t *testing.T) {
	p := Inherit("PATH", "HOME").With(map[string]string{"API_KEY": "k"}).With(map[string]string{"MODE": "x"})
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"inherit":["PATH","HOME"],"set":{"API_KEY":"k","MODE":"x"},"policy":"sanitized"}`
	var got, exp map[string]any
	_ = json.Unmarshal(b, &got)
	_ = json.Unmarshal([]byte(want), &exp)
	if string(mustJSON(t, got)) != string(mustJSON(t, exp)) {
		t.Fatalf("got %s, want %s", b, want)
	}
	if s := Set(map[string]string{"A": "1"}); s["A"] != EnvValueString("1") {
		t.Fatalf("Set: %#v", s)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
