// The README's example hosts are the files CI runs (scripts/test-clients.sh), word for word.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const HOSTS = [
  ["go", "clients/go/examples/host/main.go"],
  ["python", "clients/python/examples/host.py"],
] as const;

function codeBlocks(markdown: string, lang: string): string[] {
  const re = new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```$", "gm");
  return [...markdown.matchAll(re)].map((m) => m[1]);
}

for (const [lang, file] of HOSTS) {
  test(`README shows ${file} as it is`, () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const source = readFileSync(path.join(ROOT, file), "utf8");
    const lines = source.split("\n").length - 1;
    assert.ok(lines >= 20 && lines <= 40, `${file} has ${lines} lines; the README wants 20–40`);
    const firstLine = source.split("\n")[0];
    const block = codeBlocks(readme, lang).find((b) => b.split("\n")[0] === firstLine);
    assert.ok(block, `README.md has no ${lang} block starting with ${JSON.stringify(firstLine)}: copy ${file} into it`);
    assert.equal(block, source, `the README's copy of ${file} differs from the file CI runs`);
  });
}
