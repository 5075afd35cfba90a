import { test } from "node:test";
import assert from "node:assert/strict";
import { Redactor } from "../../../src/journal/redact.js";
import { envLiterals } from "../../../src/env/policy.js";

test("R-REC-1: every literal of set and env is replaced by <redacted:NAME> wherever it occurs, escaped forms too", () => {
  const r = new Redactor();
  r.add(
    envLiterals({
      policy: { policy: "sanitized", set: { API_KEY: "sk-abc123", SHORT: "1", HOME_REF: { hostEnv: "HOME" } } },
      sessionEnv: { TOKEN: 'to"ken\\x' },
    }),
  );
  assert.equal(r.redact("key sk-abc123 and sk-abc123!"), "key <redacted:API_KEY> and <redacted:API_KEY>!");
  assert.equal(r.redact(JSON.stringify({ t: 'to"ken\\x' })), '{"t":"<redacted:TOKEN>"}', "the JSON-escaped form");
  assert.deepEqual(r.redactValue({ a: ["x sk-abc123"], "sk-abc123": 1, n: 1 }), { a: ["x <redacted:API_KEY>"], "<redacted:API_KEY>": 1, n: 1 });
  assert.equal(r.redact("1 + 1"), "1 + 1", "values under 4 characters are not credentials");
});

test("R-REC-1: a longer secret containing a shorter one is replaced whole", () => {
  const r = new Redactor();
  r.add([
    ["A", "abcd"],
    ["B", "abcdefgh"],
  ]);
  assert.equal(r.redact("abcdefgh abcd"), "<redacted:B> <redacted:A>");
});
