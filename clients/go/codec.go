package a4aa

// The small decoding and encoding helpers the generated types are built from: strict
// decoders (func(json.RawMessage) (T, error)) and an object writer that keeps wire order.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// DecodeError says which type and field of a message did not match the schema.
type DecodeError struct {
	Type  string // schema type, e.g. "ToolCallEvent"
	Field string // wire name of the field, "" for the object itself
	Msg   string
	Err   error
}

func (e *DecodeError) Error() string {
	where := e.Type
	if e.Field != "" {
		where += "." + e.Field
	}
	if e.Err != nil {
		return fmt.Sprintf("a4aa: decode %s: %v", where, e.Err)
	}
	return fmt.Sprintf("a4aa: decode %s: %s", where, e.Msg)
}

func (e *DecodeError) Unwrap() error { return e.Err }

func fieldError(typ, field string, err error) error {
	return &DecodeError{Type: typ, Field: field, Err: err}
}

func missingField(typ, field string) error {
	return &DecodeError{Type: typ, Field: field, Msg: "required field is missing"}
}

func enumError(typ, value string) error {
	return &DecodeError{Type: typ, Msg: fmt.Sprintf("%q is not one of its values", value)}
}

func unknownTag(typ, tag, value string) error {
	return &DecodeError{Type: typ, Field: tag, Msg: fmt.Sprintf("unknown tag %q", value)}
}

func noBranch(typ string, raw json.RawMessage) error {
	s := string(raw)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return &DecodeError{Type: typ, Msg: "matches none of its branches: " + s}
}

func unknownType(name string) error {
	return &DecodeError{Type: name, Msg: "no such type in the schema"}
}

type kindError string

func (e kindError) Error() string { return string(e) }

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// firstByte is the first non-space byte of raw, or 0.
func firstByte(raw json.RawMessage) byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return 0
	}
	return t[0]
}

func objectOf(raw json.RawMessage, typ string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if isNull(raw) {
		return nil, &DecodeError{Type: typ, Msg: "expected an object, got null"}
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &DecodeError{Type: typ, Msg: "expected an object", Err: err}
	}
	return m, nil
}

func tagOf(m map[string]json.RawMessage, typ, tag string) (string, error) {
	raw, ok := m[tag]
	if !ok {
		return "", missingField(typ, tag)
	}
	s, err := decString(raw)
	if err != nil {
		return "", fieldError(typ, tag, err)
	}
	return s, nil
}

func checkConstString(m map[string]json.RawMessage, typ, field, want string) error {
	raw, ok := m[field]
	if !ok {
		return missingField(typ, field)
	}
	got, err := decString(raw)
	if err != nil {
		return fieldError(typ, field, err)
	}
	if got != want {
		return &DecodeError{Type: typ, Field: field, Msg: fmt.Sprintf("must be %q, got %q", want, got)}
	}
	return nil
}

func checkConstBool(m map[string]json.RawMessage, typ, field string, want bool) error {
	raw, ok := m[field]
	if !ok {
		return missingField(typ, field)
	}
	got, err := decBool(raw)
	if err != nil {
		return fieldError(typ, field, err)
	}
	if got != want {
		return &DecodeError{Type: typ, Field: field, Msg: fmt.Sprintf("must be %v", want)}
	}
	return nil
}

func rejectUnknown(m map[string]json.RawMessage, typ string, known ...string) error {
	var extra []string
	for k := range m {
		if !contains(known, k) {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	sort.Strings(extra)
	return &DecodeError{Type: typ, Msg: "unknown field(s) " + strings.Join(extra, ", ")}
}

func extraFields(m map[string]json.RawMessage, known ...string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for k, v := range m {
		if contains(known, k) {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[k] = v
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func decString(raw json.RawMessage) (string, error) {
	var s string
	if firstByte(raw) != '"' {
		return "", kindError("expected a string")
	}
	// Fast path (large texts): no escapes, valid UTF-8, nothing after the closing quote.
	t := bytes.TrimSpace(raw)
	if len(t) >= 2 && t[len(t)-1] == '"' && bytes.IndexByte(t[1:len(t)-1], '\\') < 0 && bytes.IndexByte(t[1:len(t)-1], '"') < 0 && !hasControl(t[1:len(t)-1]) && utf8.Valid(t) {
		return string(t[1 : len(t)-1]), nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

func decStringMin(min int) func(json.RawMessage) (string, error) {
	return func(raw json.RawMessage) (string, error) {
		s, err := decString(raw)
		if err == nil && len([]rune(s)) < min {
			err = kindError(fmt.Sprintf("must be at least %d character(s) long", min))
		}
		return s, err
	}
}

func decInt(raw json.RawMessage) (int64, error) {
	if c := firstByte(raw); c != '-' && (c < '0' || c > '9') {
		return 0, kindError("expected an integer")
	}
	var f json.Number
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, kindError("expected an integer")
	}
	if n, err := f.Int64(); err == nil {
		return n, nil
	}
	// 1.0 is an integer in JSON Schema.
	if x, err := f.Float64(); err == nil && x == float64(int64(x)) {
		return int64(x), nil
	}
	return 0, kindError("expected an integer, got " + f.String())
}

func decIntMin(min int64) func(json.RawMessage) (int64, error) {
	return decIntRange(min, 1<<63-1)
}

func decIntRange(min, max int64) func(json.RawMessage) (int64, error) {
	return func(raw json.RawMessage) (int64, error) {
		n, err := decInt(raw)
		if err == nil && (n < min || n > max) {
			err = kindError(fmt.Sprintf("%d is out of range [%d, %d]", n, min, max))
		}
		return n, err
	}
}

func decFloat(raw json.RawMessage) (float64, error) {
	if c := firstByte(raw); c != '-' && (c < '0' || c > '9') {
		return 0, kindError("expected a number")
	}
	var f json.Number
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, kindError("expected a number")
	}
	return f.Float64()
}

func decFloatMin(min float64) func(json.RawMessage) (float64, error) {
	return decFloatRange(min, 1.7976931348623157e308)
}

func decFloatRange(min, max float64) func(json.RawMessage) (float64, error) {
	return func(raw json.RawMessage) (float64, error) {
		n, err := decFloat(raw)
		if err == nil && (n < min || n > max) {
			err = kindError(fmt.Sprintf("%v is out of range [%v, %v]", n, min, max))
		}
		return n, err
	}
}

func decBool(raw json.RawMessage) (bool, error) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, kindError("expected a boolean")
}

func decAny(raw json.RawMessage) (json.RawMessage, error) {
	if !json.Valid(raw) {
		return nil, kindError("invalid JSON")
	}
	return append(json.RawMessage(nil), raw...), nil
}

func decAnyObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	return objectOf(raw, "JsonObject")
}

func sliceOf[T any](item func(json.RawMessage) (T, error)) func(json.RawMessage) ([]T, error) {
	return func(raw json.RawMessage) ([]T, error) {
		var items []json.RawMessage
		if isNull(raw) {
			return nil, kindError("expected an array, got null")
		}
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, kindError("expected an array")
		}
		out := make([]T, 0, len(items))
		for i, r := range items {
			v, err := item(r)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out = append(out, v)
		}
		return out, nil
	}
}

func mapOf[T any](value func(json.RawMessage) (T, error)) func(json.RawMessage) (map[string]T, error) {
	return func(raw json.RawMessage) (map[string]T, error) {
		m, err := objectOf(raw, "map")
		if err != nil {
			return nil, err
		}
		out := make(map[string]T, len(m))
		for k, r := range m {
			v, err := value(r)
			if err != nil {
				return nil, fmt.Errorf("[%q]: %w", k, err)
			}
			out[k] = v
		}
		return out, nil
	}
}

// ptrOf decodes an optional field that needs a pointer to say "absent".
func ptrOf[T any](f func(json.RawMessage) (T, error)) func(json.RawMessage) (*T, error) {
	return func(raw json.RawMessage) (*T, error) {
		v, err := f(raw)
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
}

// nullableOf decodes `X | null` as *X (nil for null).
func nullableOf[T any](f func(json.RawMessage) (T, error)) func(json.RawMessage) (*T, error) {
	return func(raw json.RawMessage) (*T, error) {
		if isNull(raw) {
			return nil, nil
		}
		return ptrOf(f)(raw)
	}
}

// nullOr decodes `X | null` where X is itself nilable (nil for null).
func nullOr[T any](f func(json.RawMessage) (T, error)) func(json.RawMessage) (T, error) {
	return func(raw json.RawMessage) (T, error) {
		var zero T
		if isNull(raw) {
			return zero, nil
		}
		return f(raw)
	}
}

func orEmptySlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func orEmptyMap[T any](m map[string]T) map[string]T {
	if m == nil {
		return map[string]T{}
	}
	return m
}

// objWriter writes a JSON object field by field, in the order given.
type objWriter struct {
	buf bytes.Buffer
	err error
	n   int
}

func (w *objWriter) field(key string, v any) {
	if w.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		w.err = fmt.Errorf("field %q: %w", key, err)
		return
	}
	w.rawField(key, b)
}

func (w *objWriter) rawField(key string, b []byte) {
	if w.n == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	w.n++
	k, _ := json.Marshal(key)
	w.buf.Write(k)
	w.buf.WriteByte(':')
	w.buf.Write(b)
}

func (w *objWriter) extra(m map[string]json.RawMessage) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if w.err == nil {
			w.rawField(k, m[k])
		}
	}
}

func (w *objWriter) bytes() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.n == 0 {
		return []byte("{}"), nil
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes(), nil
}

// Ptr returns a pointer to v, for optional fields: Cwd: a4aa.Ptr("/work").
func Ptr[T any](v T) *T { return &v }
