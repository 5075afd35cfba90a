// Broken: with --record DIR, also writes every host line as it came, secrets and all, to
// DIR/raw.jsonl. Caught by R-REC-1.
import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { runProxy } from "./proxy.js";

const i = process.argv.indexOf("--record");
const dir = i >= 0 ? process.argv[i + 1] : undefined;
runProxy({
  fromHost: (m) => {
    if (dir) mkdirSync(dir, { recursive: true });
    if (dir) appendFileSync(path.join(dir, "raw.jsonl"), JSON.stringify(m) + "\n");
  },
});
