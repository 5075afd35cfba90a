package a4aa

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Error is a failed call: the sidecar's JSON-RPC error with its a4aa data, or one this
// client made up when the transport ended (Code ErrorCodePeerClosed).
type Error struct {
	// RPCCode is the JSON-RPC error code (-32602, -32001, -32000, …).
	RPCCode int
	Message string
	// Code, Stage, Retryable, UncertainEffect and Detail are the error's data; Code is ""
	// when the sidecar sent no a4aa data.
	Code            ErrorCode
	Stage           ErrorStage
	Retryable       bool
	UncertainEffect bool
	Detail          string
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
	if e.Detail != "" && e.Detail != e.Message {
		s += ": " + e.Detail
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
		return &Error{RPCCode: -32603, Message: "malformed error response: " + string(raw)}
	}
	e := &Error{RPCCode: w.Code, Message: w.Message, Data: w.Data}
	var d struct {
		Code            string `json:"code"`
		Stage           string `json:"stage"`
		Retryable       bool   `json:"retryable"`
		UncertainEffect bool   `json:"uncertainEffect"`
		Detail          string `json:"detail"`
	}
	if len(w.Data) > 0 && json.Unmarshal(w.Data, &d) == nil {
		e.Code, e.Stage, e.Retryable, e.UncertainEffect, e.Detail = ErrorCode(d.Code), ErrorStage(d.Stage), d.Retryable, d.UncertainEffect, d.Detail
	}
	return e
}

// peerClosed is the error of a call the transport ended under: sent calls may have acted.
func peerClosed(sent bool, why string) *Error {
	return &Error{
		RPCCode:         -32000,
		Message:         "the sidecar connection is closed: " + why,
		Code:            ErrorCodePeerClosed,
		Stage:           ErrorStageTransport,
		UncertainEffect: sent,
	}
}

// paramsError marks a sidecar → host message whose params did not decode.
type paramsError struct{ err error }

func (e *paramsError) Error() string { return e.err.Error() }

func resultError(method string, err error) error {
	return fmt.Errorf("a4aa: %s: the result does not match the schema: %w", method, err)
}
