import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync, closeSync, statSync } from "node:fs";
import path from "node:path";
import { REDACTED, Redactor } from "../../../src/journal/redact.js";
import { createTranscriptFile } from "../../../src/journal/recorder.js";
import { envLiterals, openSecrets } from "../../../src/env/policy.js";
import { mcpLiterals } from "../../../src/lanes/mcp-servers.js";
import { scratchDir } from "../../helpers/tmp.js";

test("R-REC-1: every literal of set and env is replaced by the one marker <redacted> wherever it occurs, escaped forms too", () => {
  assert.equal(REDACTED, "<redacted>");
  const r = new Redactor();
  r.add(
    envLiterals({
      policy: { policy: "sanitized", set: { API_KEY: "sk-abc123", SHORT: "1", HOME_REF: { hostEnv: "HOME" } } },
      sessionEnv: { TOKEN: 'to"ken\\x' },
    }),
  );
  assert.equal(r.redact("key sk-abc123 and sk-abc123!"), "key <redacted> and <redacted>!");
  assert.equal(r.redact(JSON.stringify({ t: 'to"ken\\x' })), '{"t":"<redacted>"}', "the JSON-escaped form");
  assert.deepEqual(r.redactValue({ a: ["x sk-abc123"], "sk-abc123": 1, n: 1 }), { a: ["x <redacted>"], "<redacted>": 1, n: 1 });
  assert.equal(r.redact("1 + 1"), "1 + 1", "values under 4 characters are not credentials");
});

test("R-REC-1: a longer secret containing a shorter one is replaced whole", () => {
  const r = new Redactor();
  r.add([
    ["A", "abcd"],
    ["B", "abcdefgh"],
  ]);
  assert.equal(r.redact("abcdefgh abcd"), "<redacted> <redacted>");
});

test("R-REC-1 (N8): a catalog agent's own settings are no secret; the host's set, credentials and env are", () => {
  const fed = openSecrets({ agent: { set: { MY_FLAG: "host-given" }, credentials: { GEMINI_API_KEY: "AIza-secret" } }, env: { E: "env-value" } });
  assert.deepEqual(fed.map(([, v]) => v).sort(), ["AIza-secret", "env-value", "host-given"]);
  const r = new Redactor();
  r.add(fed);
  // What the catalog entry sets (GEMINI_CLI_NO_RELAUNCH=true) never reaches the redactor: text stays whole.
  assert.equal(r.redact("/bin/true AIza-secret"), "/bin/true <redacted>");
  // A host's own spec: every set string is the host's.
  assert.deepEqual(
    openSecrets({ spec: { command: { env: { policy: "sanitized", set: { A: "value-a", B: { hostEnv: "HOME" } } } } } }),
    [["A", "value-a"]],
  );
});

test("R-REC-1 (N9): the token of a Bearer or Basic header value is redacted alone too", () => {
  const r = new Redactor();
  r.add(mcpLiterals([{ name: "s", type: "http", url: "http://127.0.0.1:1/", headers: { Authorization: "Bearer T0KEN-xyz", X: "Basic dXNlcjpwYXNz" } } as never]));
  assert.equal(r.redact("sent T0KEN-xyz and dXNlcjpwYXNz; header Bearer T0KEN-xyz"), "sent <redacted> and <redacted>; header <redacted>");
});

test("R-REC-1: text that comes in pieces (PTY output) is redacted across piece boundaries, holding back less than two secrets", () => {
  const r = new Redactor();
  r.add([
    ["K", "SECRET-0123456789"],
    ["L", "abcd"],
  ]);
  const text = "before SECRET-0123456789 middle abcd SECRET-0123456789 after ab";
  // Every way of cutting the text in two, three pieces.
  for (let i = 0; i <= text.length; i++) {
    for (const j of [i, Math.min(text.length, i + 3), Math.min(text.length, i + 11)]) {
      const s = r.stream();
      const out = [s.push(text.slice(0, i)), s.push(text.slice(i, j)), s.push(text.slice(j)), s.end()];
      assert.equal(out.join(""), r.redact(text), `cut at ${i}, ${j}`);
      for (const o of out.slice(0, 3)) assert.ok(!o.includes("SECRET-") || !o.includes("0123"), "no piece shows part of a secret");
    }
  }
  const s = r.stream();
  assert.equal(s.push("x".repeat(100)).length, 100 - (r.maxLength - 1), "what is held back is at most the longest secret - 1");
  const none = new Redactor().stream();
  assert.equal(none.push("no secrets known"), "no secrets known", "nothing is held without secrets");
});

test("R-REC-2 (N10): a transcript name already taken (a file, a link) gets a fresh name; the file or link is not touched", () => {
  const dir = scratchDir("a4aa-names");
  writeFileSync(path.join(dir, "s-1.jsonl"), "someone else's\n");
  mkdirSync(path.join(dir, "victim"));
  writeFileSync(path.join(dir, "victim", "f"), "victim\n");
  symlinkSync(path.join(dir, "victim", "f"), path.join(dir, "s-2.jsonl"));
  symlinkSync(path.join(dir, "nowhere"), path.join(dir, "s-3.jsonl"));
  for (const name of ["s-1", "s-2", "s-3"]) {
    const { fd, file } = createTranscriptFile(dir, name);
    closeSync(fd);
    assert.match(path.basename(file), new RegExp(`^${name}-[0-9a-f]{8}\\.jsonl$`));
    assert.equal(statSync(file).mode & 0o777, 0o600);
  }
  assert.equal(readFileSync(path.join(dir, "s-1.jsonl"), "utf8"), "someone else's\n");
  assert.equal(readFileSync(path.join(dir, "victim", "f"), "utf8"), "victim\n");
  assert.ok(!readdirSync(dir).includes("nowhere"), "a dangling link is not followed");
});
