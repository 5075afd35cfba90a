// Broken: with --record DIR, each transcript is made readable by everyone (mode 0644) once
// its session is open. Caught by R-REC-2.
import { chmodSync } from "node:fs";
import path from "node:path";
import { runProxy } from "./proxy.js";

const args = process.argv.slice(2);
const dir = args.includes("--record") ? args[args.indexOf("--record") + 1] : undefined;
const opens = new Set<string>();
runProxy({
  fromHost: (m) => {
    if (m.method === "session/open" && "id" in m) opens.add(JSON.stringify(m.id));
  },
  fromSidecar: (m) => {
    if (!dir || !("id" in m) || !opens.delete(JSON.stringify(m.id)) || !m.result?.sessionId) return;
    try {
      chmodSync(path.join(dir, `${m.result.sessionId}.jsonl`), 0o644);
    } catch {
      // not written yet: nothing to break
    }
  },
});
