package a4aa

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// The generated error table and constructors say what the schema says.
func TestErrorCodesAreTheSchemas(t *testing.T) {
	raw, err := os.ReadFile("../../schema/a4aa.v1.openrpc.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Errors  map[string]struct{ Code int } `json:"errors"`
			Schemas struct {
				ErrorCode struct {
					Enum  []string `json:"enum"`
					Table map[string]struct {
						RPCError  string `json:"rpcError"`
						Message   string `json:"message"`
						Retryable bool   `json:"retryable"`
					} `json:"x-error-codes"`
				} `json:"ErrorCode"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	ec := doc.Components.Schemas.ErrorCode
	if len(ErrorCodes) != len(ec.Enum) {
		t.Fatalf("ErrorCodes has %d codes, the schema %d", len(ErrorCodes), len(ec.Enum))
	}
	for _, c := range ec.Enum {
		want := ec.Table[c]
		got := ErrorCodes[ErrorCode(c)]
		if got.RPCCode != doc.Components.Errors[want.RPCError].Code || got.Message != want.Message || got.Retryable != want.Retryable {
			t.Errorf("%s: got %+v, the schema says %+v (%s)", c, got, want, want.RPCError)
		}
	}
	e := NewTurnInProgressError(ErrorStagePrompt, "a turn is running")
	if e.RPCCode != RPCCodeAdapterError || e.Code != ErrorCodeTurnInProgress || !e.Retryable || e.Detail == nil || *e.Detail != "a turn is running" || !IsCode(e, ErrorCodeTurnInProgress) {
		t.Fatalf("NewTurnInProgressError: %+v", e)
	}
	var target *Error
	if !errors.As(error(NewInvalidParamsError(ErrorStageOpen, "")), &target) || target.RPCCode != RPCCodeInvalidParams || target.Detail != nil {
		t.Fatalf("NewInvalidParamsError: %+v", target)
	}
}

// errorFromWire keeps the data's fields in the generated ErrorData, unknown codes included.
func TestErrorFromWireEmbedsErrorData(t *testing.T) {
	e := errorFromWire(json.RawMessage(`{"code":-32000,"message":"Quota exceeded","data":{"code":"quota_exceeded","stage":"prompt","retryable":true,"uncertainEffect":false,"detail":"try later"}}`))
	if e.Code != "quota_exceeded" || e.Stage != ErrorStagePrompt || !e.Retryable || e.Detail == nil || *e.Detail != "try later" {
		t.Fatalf("got %+v", e)
	}
	if got := e.Error(); got != "a4aa: Quota exceeded (quota_exceeded, stage prompt, retryable): try later" {
		t.Fatalf("Error() = %q", got)
	}
}
