package a4aa

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The shared examples, schema/examples/<TypeName>/{valid,invalid}-*.json: every valid one
// decodes and re-encodes to the same JSON; every invalid one is rejected (an open union
// keeps an unknown tag as its Unknown value instead, which counts as not understood).
// invalid-open-* hold a value that only a later minor version could send to an open enum
// (x-open): the schema rejects it, and a client must decode it and keep it unchanged.
// invalid-pattern-* break only a pattern or maxLength (base64, names, URLs): the sidecar's
// validator rejects them; a decoder checks structure, not string contents.
func TestSchemaExamples(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "schema", "examples")
	types, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no shared examples: %v", err)
	}
	count := 0
	for _, typ := range types {
		if !typ.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, typ.Name(), "*.json"))
		sort.Strings(files)
		for _, file := range files {
			name := typ.Name() + "/" + filepath.Base(file)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			count++
			t.Run(name, func(t *testing.T) {
				v, err := DecodeByTypeName(typ.Name(), data)
				if strings.HasPrefix(filepath.Base(file), "invalid-pattern-") {
					return // only a pattern or maxLength is broken: the sidecar's validator judges it, not a decoder
				}
				open := strings.HasPrefix(filepath.Base(file), "invalid-open-")
				if strings.HasPrefix(filepath.Base(file), "invalid-") && !open {
					if err == nil && !isUnknownVariant(v) {
						t.Fatalf("accepted an invalid example as %#v", v)
					}
					return
				}
				if err != nil {
					t.Fatalf("rejected a valid example: %v", err)
				}
				out, err := json.Marshal(v)
				if err != nil {
					t.Fatalf("re-encode: %v", err)
				}
				var want, got any
				_ = json.Unmarshal(data, &want)
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("re-encoded JSON is invalid: %v", err)
				}
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("round trip changed the example:\n in %s\nout %s", data, out)
				}
			})
		}
	}
	if count == 0 {
		t.Skip("schema/examples holds no examples yet")
	}
	t.Logf("%d shared examples", count)
}

func isUnknownVariant(v any) bool {
	_, ok := v.(UnknownAgentEvent)
	return ok
}
