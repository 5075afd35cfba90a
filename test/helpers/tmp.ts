// Scratch folders for a test file, removed when the file's tests are done. Import it from
// the test file itself: the cleanup hook is registered when the module loads.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";

const made: string[] = [];
after(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function scratchDir(prefix: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  made.push(d);
  return d;
}
