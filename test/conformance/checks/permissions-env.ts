// §3 permissions (R-PERM-1) and §5 the environment boundary (R-ENV-1 … R-ENV-4).
import assert from "node:assert/strict";
import type { AgentSpec, EnvPolicy, PermissionResolvedEvent } from "../../../generated/ts/types.js";
import type { Host, PermissionAnswer } from "../harness/client.js";
import { SECRET_VAR, sleep, type Check, type CheckContext } from "../harness/context.js";
import { MARKER_VAR, describe } from "../harness/procs.js";

const resolved = (h: Host, sid: string) => h.events(sid).filter((e): e is PermissionResolvedEvent => e.type === "permissionResolved");

function noApproval(h: Host): void {
  const approved = h.events().filter((e) => e.type === "permissionResolved" && e.outcome === "selected");
  assert.deepEqual(approved, [], "something was approved that the host did not select");
}

async function agentEnv(h: Host, sid: string, text = "env"): Promise<Record<string, string>> {
  const out = await h.api.sessionPrompt({ sessionId: sid, text });
  const raw = (out.text ?? "").replace(/^echo: /, "").trim();
  return JSON.parse(raw);
}

function acpWithEnv(ctx: CheckContext, env: EnvPolicy): AgentSpec {
  const spec = ctx.acp();
  const set = { ...((env as { set?: object }).set ?? {}), [MARKER_VAR]: ctx.marker };
  return { ...spec, command: { ...spec.command, env: { ...env, set } as EnvPolicy } };
}

export const permissionChecks: Check[] = [
  {
    id: "R-PERM-1/bad-answers-fail-closed",
    covers: ["R-PERM-1"],
    title: "an error response, a malformed result, an unknown option id and an explicit cancel all make the agent see cancelled",
    async run(ctx) {
      const h = ctx.start();
      const answers: [string, PermissionAnswer][] = [
        ["an error response", { error: { code: -32000, message: "the host says no" } }],
        ["a malformed result", { result: { selected: 1 }, unchecked: true }],
        ["a result of the wrong shape", { result: { approve: true }, unchecked: true }],
        ["an unknown option id", { result: { selected: "sure" } }],
        ["an explicit cancel", { result: { cancelled: true } }],
      ];
      for (const [what, answer] of answers) {
        h.onPermission = () => answer;
        const sid = (await h.open(ctx.acp())).sessionId;
        const out = await h.api.sessionPrompt({ sessionId: sid, text: "permission" });
        assert.equal(out.text, "outcome:cancelled", `${what}: the agent saw ${out.text}`);
        assert.equal(resolved(h, sid)[0]?.outcome, "cancelled", `${what}: permissionResolved`);
      }
      noApproval(h);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-PERM-1/timeout",
    covers: ["R-PERM-1"],
    title: "--permission-timeout elapsing with no answer makes the agent see cancelled",
    async run(ctx) {
      const h = ctx.start({ args: ["--permission-timeout", "300"] });
      const sid = (await h.open(ctx.acp())).sessionId;
      const out = await h.api.sessionPrompt({ sessionId: sid, text: "permission" });
      assert.equal(out.text, "outcome:cancelled");
      noApproval(h);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-PERM-1/cancel-and-close-while-asking",
    covers: ["R-PERM-1"],
    title: "a turn cancelled, or a session closed, while the host decides: the agent sees cancelled and a late answer approves nothing",
    async run(ctx) {
      const h = ctx.start();
      const late: (() => void)[] = [];
      h.onPermission = () => new Promise<PermissionAnswer>((resolve) => late.push(() => resolve({ result: { selected: "yes" } })));
      const a = (await h.open(ctx.acp())).sessionId;
      const ta = h.prompt(a, "permission");
      await h.waitFor(() => h.permissionRequests().length === 1, 10_000, "the permission request");
      await h.api.sessionCancel({ sessionId: a });
      const ra = await ta;
      assert.equal(ra.result?.stopReason, "cancelled", JSON.stringify(ra.result ?? ra.error));
      assert.ok(!ra.result?.text?.includes("selected"), `the agent saw ${ra.result?.text}`);
      late.shift()!();
      await h.api.ping();
      const b = (await h.open(ctx.acp())).sessionId;
      const tb = h.prompt(b, "permission");
      await h.waitFor(() => h.permissionRequests().length === 2, 10_000, "the second permission request");
      await h.api.sessionClose({ sessionId: b });
      const rb = await tb;
      assert.ok(rb.result?.stopReason === "cancelled" || rb.error?.data?.code === "session_closed", JSON.stringify(rb.result ?? rb.error));
      late.shift()!();
      await h.api.ping();
      await sleep(100);
      noApproval(h);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-PERM-1/R-RPC-3/codex-decline",
    covers: ["R-PERM-1", "R-RPC-3"],
    title: "codexAppServer: a host error answer becomes decline",
    async run(ctx) {
      const h = ctx.start();
      h.onPermission = () => ({ error: { code: -32000, message: "no" } });
      const sid = (await h.open(ctx.rpc())).sessionId;
      const out = await h.api.sessionPrompt({ sessionId: sid, text: "cmd:touch x" });
      assert.match(out.text ?? "", /decision="decline"/);
      noApproval(h);
      assert.equal(await h.end(), 0);
    },
  },
];

export const envChecks: Check[] = [
  {
    id: "R-ENV-1/exact-environment",
    covers: ["R-ENV-1"],
    title: "a sanitized agent gets exactly the inherited names, set (with hostEnv) and session env — nothing else of the sidecar's environment",
    async run(ctx) {
      const h = ctx.start({ env: { LC_TIME: "C" } });
      const spec = acpWithEnv(ctx, { policy: "sanitized", inherit: ["PATH", "LC_TIME"], set: { MODE: "x", H: { hostEnv: "HOME" } } });
      const sid = (await h.open(spec, { env: { MODE: "y", EXTRA: "1" } })).sessionId;
      const env = await agentEnv(h, sid);
      // A4AA_AGENT_COOKIE: the one name an implementation may add (EnvPolicy, since 1.2.0).
      delete env.A4AA_AGENT_COOKIE;
      assert.deepEqual(Object.keys(env).sort(), ["EXTRA", "H", "LC_TIME", MARKER_VAR, "MODE", "PATH"].sort());
      assert.equal(env.MODE, "y", "session env wins over set");
      assert.equal(env.H, process.env.HOME, "hostEnv reads the sidecar's value");
      assert.equal(env.LC_TIME, "C");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ENV-1/all-lanes",
    covers: ["R-ENV-1"],
    title: "rpc and cli agents get the policy's environment too, never the sidecar's secret",
    async run(ctx) {
      const h = ctx.start();
      for (const spec of [ctx.rpc(), ctx.cli("generic")]) {
        const sid = (await h.open(spec)).sessionId;
        const env = await agentEnv(h, sid);
        assert.equal(env[SECRET_VAR], undefined, `${spec.lane}: the sidecar's secret reached the agent`);
        const extra = Object.keys(env).filter((k) => !["PATH", "HOME", MARKER_VAR, "A4AA_AGENT_COOKIE"].includes(k));
        assert.deepEqual(extra, [], `${spec.lane}: names the policy did not give: ${extra.join(", ")}`);
      }
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ENV-1/refused-names",
    covers: ["R-ENV-1"],
    title: "inheriting, or hostEnv of, a name outside the allowlist is env_refused (stage spawn) and nothing is started",
    async run(ctx) {
      const h = ctx.start();
      for (const env of [
        { policy: "sanitized", inherit: ["PATH", SECRET_VAR] },
        { policy: "sanitized", set: { T: { hostEnv: SECRET_VAR } } },
        { policy: "sanitized", inherit: ["LD_PRELOAD"] },
      ] as EnvPolicy[]) {
        const e = await h.fail("session/open", { spec: acpWithEnv(ctx, env) }, "env_refused");
        assert.equal(e.data?.stage, "spawn");
        const left = ctx.leftovers();
        assert.deepEqual(left, [], `an agent was started: ${describe(left)}`);
      }
      const ok = await h.open(acpWithEnv(ctx, { policy: "sanitized", inherit: ["PATH", "LC_ALL", "TZ"] }));
      assert.ok(ok.sessionId, "allowlisted names (LC_*, TZ) are accepted");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ENV-2/secret-refused",
    covers: ["R-ENV-2"],
    title: "a secret reference is always env_refused, even with --trust-host-env",
    async run(ctx) {
      const h = ctx.start({ args: ["--trust-host-env"] });
      for (const env of [
        { policy: "sanitized", set: { T: { secret: "vault:x" } } },
        { policy: "inheritAll", set: { T: { secret: "vault:x" } } },
      ] as EnvPolicy[]) {
        const e = await h.fail("session/open", { spec: acpWithEnv(ctx, env) }, "env_refused");
        assert.equal(e.data?.stage, "spawn");
      }
      assert.deepEqual(ctx.leftovers(), []);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ENV-3/refused-without-trust",
    covers: ["R-ENV-3"],
    title: "inheritAll is env_refused when the sidecar runs without --trust-host-env",
    async run(ctx) {
      const h = ctx.start();
      const e = await h.fail("session/open", { spec: acpWithEnv(ctx, { policy: "inheritAll" }) }, "env_refused");
      assert.equal(e.data?.stage, "spawn");
      assert.deepEqual(ctx.leftovers(), []);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ENV-3/allowed-with-trust",
    covers: ["R-ENV-3"],
    title: "with --trust-host-env, inheritAll passes the sidecar's whole environment",
    async run(ctx) {
      const h = ctx.start({ args: ["--trust-host-env"] });
      const sid = (await h.open(acpWithEnv(ctx, { policy: "inheritAll" }))).sessionId;
      const env = await agentEnv(h, sid);
      assert.equal(env[SECRET_VAR], ctx.secret);
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-ENV-4/names-and-values",
    covers: ["R-ENV-4"],
    title: "bad variable names and values holding NUL are env_refused, in the policy and in session/open's env",
    async run(ctx) {
      const h = ctx.start();
      const cases: [string, Record<string, unknown>][] = [
        ["a name with '-'", { spec: acpWithEnv(ctx, { policy: "sanitized", set: { "A-B": "1" } }) }],
        ["a name starting with a digit", { spec: acpWithEnv(ctx, { policy: "sanitized", set: { "1A": "1" } }) }],
        ["a NUL in a set value", { spec: acpWithEnv(ctx, { policy: "sanitized", set: { A: "x\u0000y" } }) }],
        ["a bad name in session env", { spec: ctx.acp(), env: { "BAD NAME": "x" } }],
        ["a NUL in session env", { spec: ctx.acp(), env: { GOOD: "x\u0000" } }],
        ["an inherit name with '='", { spec: acpWithEnv(ctx, { policy: "sanitized", inherit: ["PATH=x"] }) }],
      ];
      for (const [what, params] of cases) {
        const r = await h.send("session/open", params);
        assert.ok(r.error?.data?.code === "env_refused", `${what}: expected env_refused, got ${JSON.stringify(r.error ?? r.result)}`);
      }
      assert.deepEqual(ctx.leftovers(), []);
      assert.equal(await h.end(), 0);
    },
  },
];
