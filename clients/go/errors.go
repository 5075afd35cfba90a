package a4aa

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Error is a failed call: the sidecar's JSON-RPC error with its a4aa data, or one this
// client made up when the transport ended (Code ErrorCodePeerClosed).
type Error struct {
	// RPCCode is the JSON-RPC error code (RPCCodeInvalidParams, RPCCodeUnknownSession, …).
	RPCCode int
	Message string
	// ErrorData is the error's a4aa data (Code, Stage, Retryable, UncertainEffect, Detail);
	// Code is "" when the sidecar sent none.
	ErrorData
	// Data is the error's data as received.
	Data json.RawMessage
}

func (e *Error) Error() string {
	s := fmt.Sprintf("a4aa: %s", e.Message)
	if e.Code != "" {
		s += fmt.Sprintf(" (%s, stage %s", e.Code, e.Stage)
		if e.Retryable {
			s += ", retryable"
		}
		if e.UncertainEffect {
			s += ", uncertain effect"
		}
		s += ")"
	}
	if e.Detail != nil && *e.Detail != "" && *e.Detail != e.Message {
		s += ": " + *e.Detail
	}
	return s
}

// IsCode reports whether err is (or wraps) an *Error with the given data code.
func IsCode(err error, code ErrorCode) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// errorFromWire reads a JSON-RPC error object leniently: a data code or stage this client
// does not know is kept as it is.
func errorFromWire(raw json.RawMessage) *Error {
	var w struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return &Error{RPCCode: RPCCodeInternalError, Message: "malformed error response: " + string(raw)}
	}
	e := &Error{RPCCode: w.Code, Message: w.Message, Data: w.Data}
	var d ErrorData
	if len(w.Data) > 0 && json.Unmarshal(w.Data, &d) == nil {
		e.ErrorData = d
	}
	return e
}

// newError makes the error the schema describes for code (errors_gen.go has one
// constructor per code).
func newError(code ErrorCode, stage ErrorStage, detail string) *Error {
	info := ErrorCodes[code]
	e := &Error{RPCCode: info.RPCCode, Message: info.Message, ErrorData: ErrorData{Code: code, Stage: stage, Retryable: info.Retryable}}
	if detail != "" {
		e.Detail = &detail
	}
	return e
}

// peerClosed is the error of a call the transport ended under: sent calls may have acted.
func peerClosed(sent bool, why string) *Error {
	e := NewPeerClosedError(ErrorStageTransport, "")
	e.Message = "the sidecar connection is closed: " + why
	e.UncertainEffect = sent
	return e
}

// paramsError marks a sidecar → host message whose params did not decode.
type paramsError struct{ err error }

func (e *paramsError) Error() string { return e.err.Error() }

func resultError(method string, err error) error {
	return fmt.Errorf("a4aa: %s: the result does not match the schema: %w", method, err)
}
