import { test } from "node:test";
import assert from "node:assert/strict";
import { buildChildEnv, type EnvInput } from "../../../src/env/policy.js";

const hostEnv = { PATH: "/bin", HOME: "/root", LC_ALL: "C", SECRET_TOKEN: "s3cret", AWS_SECRET_ACCESS_KEY: "k", TERM: "xterm" };
const base = (policy: EnvInput["policy"], extra: Partial<EnvInput> = {}): EnvInput => ({ policy, hostEnv, trustHostEnv: false, ...extra });

const ok = (i: EnvInput) => {
  const r = buildChildEnv(i);
  assert.ok(r.ok, !r.ok ? r.error.message : "");
  return r.env;
};
const refused = (i: EnvInput, re: RegExp) => {
  const r = buildChildEnv(i);
  assert.ok(!r.ok, "expected a refusal");
  assert.equal(r.error.code, "env_refused");
  assert.equal(r.error.stage, "spawn");
  assert.match(r.error.message, re);
};

test("sanitized with nothing gives an empty environment: SECRET_TOKEN never leaks (R-ENV-1)", () => {
  assert.deepEqual(ok(base({ policy: "sanitized" })), {});
});

test("allowlisted names are inherited, then set, then the session's literals (R-ENV-1)", () => {
  const env = ok(
    base(
      { policy: "sanitized", inherit: ["PATH", "HOME", "LC_ALL", "TZ"], set: { HOME: "/scratch", A: "1", B: { hostEnv: "TERM" } } },
      { sessionEnv: { A: "2" } },
    ),
  );
  assert.deepEqual(env, { PATH: "/bin", HOME: "/scratch", LC_ALL: "C", A: "2", B: "xterm" });
});

for (const [name, policy, re] of [
  ["inherit of a credential", { policy: "sanitized", inherit: ["SECRET_TOKEN"] }, /SECRET_TOKEN is not on the allowlist/],
  ["hostEnv of a credential", { policy: "sanitized", set: { T: { hostEnv: "AWS_SECRET_ACCESS_KEY" } } }, /not on the inherit allowlist/],
  ["LC_ prefix alone", { policy: "sanitized", inherit: ["LC_"] }, /allowlist/],
] as const) {
  test(`refused: ${name} (R-ENV-1)`, () => refused(base(policy as EnvInput["policy"]), re));
}

test("secret references are always refused, even when trusted (R-ENV-2)", () => {
  refused(base({ policy: "sanitized", set: { T: { secret: "vault://x" } } }), /secret references are always refused/);
  refused(base({ policy: "inheritAll", set: { T: { secret: "vault://x" } } }, { trustHostEnv: true }), /secret/);
});

test("inheritAll is refused unless the sidecar trusts the host env (R-ENV-3)", () => {
  refused(base({ policy: "inheritAll" }), /--trust-host-env/);
  const env = ok(base({ policy: "inheritAll", set: { X: "1" } }, { trustHostEnv: true }));
  assert.equal(env.SECRET_TOKEN, "s3cret");
  assert.equal(env.X, "1");
});

for (const [name, input, re] of [
  ["a name with a dash in set", base({ policy: "sanitized", set: { "BAD-NAME": "x" } }), /not a valid variable name/],
  ["a name starting with a digit in env", base({ policy: "sanitized" }, { sessionEnv: { "1X": "x" } }), /not a valid variable name/],
  ["= in an inherit name", base({ policy: "sanitized", inherit: ["PATH=/x"] }), /not a valid variable name/],
  ["a NUL in a set value", base({ policy: "sanitized", set: { A: "a\0b" } }), /NUL/],
  ["a NUL in a session value", base({ policy: "sanitized" }, { sessionEnv: { A: "\0" } }), /NUL/],
] as const) {
  test(`refused: ${name} (R-ENV-4)`, () => refused(input as EnvInput, re));
}

test("the function is pure: the host env object is not changed", () => {
  const before = JSON.stringify(hostEnv);
  ok(base({ policy: "sanitized", inherit: ["PATH"], set: { PATH: "/x" } }));
  assert.equal(JSON.stringify(hostEnv), before);
});

test("a name such as __proto__ is passed like any other, never dropped (R-ENV-1)", () => {
  const set = JSON.parse('{"__proto__": "p", "constructor": "c"}') as Record<string, string>;
  const env = ok(base({ policy: "sanitized", set }, { sessionEnv: JSON.parse('{"__proto__": "q"}') }));
  assert.deepEqual(Object.keys(env).sort(), ["__proto__", "constructor"]);
  assert.equal(Object.getOwnPropertyDescriptor(env, "__proto__")?.value, "q");
  assert.equal(Object.getPrototypeOf(env), Object.prototype);
  assert.equal({ ...env }.constructor, "c");
});
