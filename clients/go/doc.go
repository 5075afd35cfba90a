// Package a4aa is the Go host client of the a4aa sidecar (protocol a4aa.v1): it spawns
// `a4aa serve`, speaks JSON-RPC 2.0 over NDJSON on its stdin/stdout, and gives every method
// a typed stub (Ping, SessionOpen, SessionPrompt, …), every session an event channel
// (Events), and permission requests to a handler the host registers (none: fail closed).
//
// types_gen.go and methods_gen.go are generated from schema/a4aa.v1.openrpc.json by
// `npm run codegen`; the rest is a small runtime that uses the standard library only.
package a4aa
