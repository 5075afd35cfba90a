#!/usr/bin/env node
// The physical floor of a Node NDJSON sidecar: read a line, JSON.parse it, answer with
// JSON.stringify, write. No validation, no dispatch, no framing limits.
let parts: string[] = [];
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  let start = 0;
  let nl = chunk.indexOf("\n");
  while (nl !== -1) {
    let line = chunk.slice(start, nl);
    if (parts.length) {
      parts.push(line);
      line = parts.join("");
      parts = [];
    }
    if (line.length) {
      const m = JSON.parse(line) as { id?: unknown };
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocol: "a4aa.v1", version: "0.1.0" } }) + "\n");
    }
    start = nl + 1;
    nl = chunk.indexOf("\n", start);
  }
  if (start < chunk.length) parts.push(chunk.slice(start));
});
