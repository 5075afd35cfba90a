#!/usr/bin/env node
// The physical floor of a Node NDJSON sidecar: read a line, JSON.parse it, answer with
// JSON.stringify, write. No validation, no dispatch, no framing limits.
import { readLines } from "../lib/ndjson.js";

readLines(process.stdin, (line) => {
  const m = JSON.parse(line) as { id?: unknown };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocol: "a4aa.v1", version: "0.1.0" } }) + "\n");
});
