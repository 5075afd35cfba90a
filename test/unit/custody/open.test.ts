// R-CUSTODY-1 at session/open: which opens custody refuses before spawning, where the upstream
// comes from, and what the agent holds instead of its key (env, argv) for each way an entry
// points its agent at a base URL.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentSpec, SessionOpenParams } from "../../../generated/ts/types.js";
import { BUILTIN_CATALOG } from "../../../generated/ts/catalog.js";
import type { CatalogEntry } from "../../../src/catalog/entries.js";
import { A4aaError } from "../../../src/errors.js";
import { PLACEHOLDER_KEY, custodyPlan, underCustody } from "../../../src/custody/open.js";

const entry = (id: string): CatalogEntry => ({ agent: BUILTIN_CATALOG.agents.find((a) => a.id === id)!, source: "builtin" });
const open = (id: string, upstream?: string): SessionOpenParams => ({ agent: { id, ...(upstream ? { upstream } : {}) }, options: { custody: "proxy" } });
const spec = (args: string[]): AgentSpec => ({ id: "x", lane: "rpc", dialect: "codexAppServer", command: { program: "codex", args, env: { policy: "sanitized" } } }) as AgentSpec;
const PROXY = "http://127.0.0.1:4100";
const TOKEN = "ab".repeat(24);

function refusal(f: () => unknown): { code: string; detail: string } {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof A4aaError);
    return { code: e.code, detail: e.detail ?? e.message };
  }
  assert.fail("not refused");
}

test("R-CUSTODY-1: a spec open, an entry without modelApi, a missing key: refused before anything is spawned", () => {
  assert.equal(refusal(() => custodyPlan({ spec: spec([]), options: { custody: "proxy" } }, undefined, {})).code, "unsupported_selector");
  const r = refusal(() => custodyPlan(open("opencode"), entry("opencode"), { ANTHROPIC_API_KEY: "k" }));
  assert.equal(r.code, "unsupported_selector");
  assert.match(r.detail, /"opencode" has no modelApi/);
  const k = refusal(() => custodyPlan(open("claude-code"), entry("claude-code"), {}));
  assert.equal(k.code, "auth_required");
  assert.match(k.detail, /ANTHROPIC_API_KEY/);
});

test("R-CUSTODY-1: the upstream is agent.upstream, else the base URL variable the host gave, else the catalog's", () => {
  const env = { ANTHROPIC_API_KEY: "sk-real", ANTHROPIC_BASE_URL: "http://gateway.test/anthropic" };
  assert.equal(custodyPlan(open("claude-code", "https://other.test"), entry("claude-code"), env).route.upstream, "https://other.test");
  assert.equal(custodyPlan(open("claude-code"), entry("claude-code"), env).route.upstream, "http://gateway.test/anthropic");
  assert.equal(custodyPlan(open("claude-code"), entry("claude-code"), { ANTHROPIC_API_KEY: "k" }).route.upstream, "https://api.anthropic.com");
  assert.equal(custodyPlan(open("codex"), entry("codex"), { OPENAI_API_KEY: "k" }).route.upstream, "https://api.openai.com/v1");
});

test("R-CUSTODY-1: a base URL variable gets the proxy's URL with the token; the key a placeholder; other key variables are gone", () => {
  const env: Record<string, string> = { ANTHROPIC_API_KEY: "sk-real", ANTHROPIC_AUTH_TOKEN: "sk-other", HOME: "/h" };
  const plan = custodyPlan(open("claude-code"), entry("claude-code"), env);
  assert.deepEqual(plan.route, { upstream: "https://api.anthropic.com", keyHeader: "x-api-key", key: "sk-real" });
  const s = spec(["-p"]);
  assert.equal(underCustody(plan, env, s, PROXY, TOKEN), s, "the command line is left as it is");
  assert.deepEqual(env, { ANTHROPIC_API_KEY: PLACEHOLDER_KEY, ANTHROPIC_BASE_URL: `${PROXY}/s/${TOKEN}`, HOME: "/h" });
});

test("R-CUSTODY-1: codex's base URL goes on the command line without the token; the key is the token; CODEX_API_KEY is gone", () => {
  const env: Record<string, string> = { OPENAI_API_KEY: "sk-real", CODEX_API_KEY: "sk-exec", CODEX_HOME: "/c" };
  const plan = custodyPlan(open("codex", "http://127.0.0.1:9/v1"), entry("codex"), env);
  assert.deepEqual(plan.route, { upstream: "http://127.0.0.1:9/v1", keyHeader: "authorization", keyPrefix: "Bearer ", key: "sk-real" });
  const out = underCustody(plan, env, spec(["app-server"]), PROXY, TOKEN);
  assert.deepEqual(env, { OPENAI_API_KEY: `a4aa-custody-${TOKEN}`, CODEX_HOME: "/c" });
  const args = out.command.args;
  assert.equal(args.at(-1), "app-server", "the lane's own arguments follow");
  assert.deepEqual(args.slice(0, 3), ["-c", 'model_provider="a4aa_custody"', "-c"]);
  assert.match(args[3]!, new RegExp(`^model_providers\\.a4aa_custody=\\{.*base_url="${PROXY}".*env_key="OPENAI_API_KEY".*\\}$`));
  assert.ok(!args.join(" ").includes(TOKEN) && !args.join(" ").includes("sk-real"), "argv holds neither the token nor the key");
});

test("R-CUSTODY-1: codex-acp's provider settings get the proxy's URL without the token (it puts them on its codex's command line); the key is the token", () => {
  const env: Record<string, string> = { OPENAI_API_KEY: "sk-real", CODEX_CONFIG: '{"host":"config"}' };
  const plan = custodyPlan(open("codex-acp"), entry("codex-acp"), env);
  const s = spec([]);
  assert.equal(underCustody(plan, env, s, PROXY, TOKEN), s);
  assert.equal(env.OPENAI_API_KEY, `a4aa-custody-${TOKEN}`);
  assert.equal(env.MODEL_PROVIDER, "a4aa_custody");
  const config = JSON.parse(env.CODEX_CONFIG!);
  assert.deepEqual(config.model_providers.a4aa_custody, { name: "OpenAI (a4aa custody)", base_url: PROXY, env_key: "OPENAI_API_KEY", wire_api: "responses" }, "the host's CODEX_CONFIG is replaced");
});
