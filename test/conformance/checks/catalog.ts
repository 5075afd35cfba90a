// §10 (protocol 1.2): session/open by catalog id, credentials, --registry files.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { AcpAgentSpec } from "../../../generated/ts/types.js";
import { ACP_AGENT, type Check, type CheckContext } from "../harness/context.js";
import { MARKER_VAR } from "../harness/procs.js";

/** An ACP entry of the spec's built-in catalog that declares credentials; run as the fake ACP agent. */
const CREDENTIAL_ENTRY = "claude-agent-acp";
const CREDENTIAL = "ANTHROPIC_API_KEY";

const markerSet = (ctx: CheckContext) => ({ [MARKER_VAR]: ctx.marker });

export const catalogChecks: Check[] = [
  {
    id: "R-AGENT-1/resolved-spec",
    covers: ["R-AGENT-1", "R-AGENT-3"],
    title: "open {agent: {id: example}} answers the resolved spec (acp, sanitized policy); a credential of a catalog entry reaches the agent and is \"<redacted>\" in the open result",
    async run(ctx) {
      const h = ctx.start();
      const ex = await h.api.sessionOpen({ agent: { id: "example", set: markerSet(ctx) }, cwd: ctx.tmp });
      assert.ok(ex.spec, "the open result of an agent open carries no spec");
      assert.equal(ex.spec.lane, "acp", `example resolved to lane ${ex.spec.lane}`);
      assert.equal(ex.spec.command.env?.policy, "sanitized", `the resolved env policy is ${JSON.stringify(ex.spec.command.env?.policy)}`);
      await h.api.sessionClose({ sessionId: ex.sessionId });

      const key = `key-${ctx.secret}`;
      const r = await h.api.sessionOpen({
        agent: { id: CREDENTIAL_ENTRY, lane: "acp", program: process.execPath, args: [ACP_AGENT], credentials: { [CREDENTIAL]: key }, set: markerSet(ctx) },
        cwd: ctx.tmp,
      });
      assert.ok(r.spec, "the open result of an agent open carries no spec");
      const spec = r.spec as AcpAgentSpec;
      assert.equal(spec.command.env?.policy, "sanitized", `the resolved env policy is ${JSON.stringify(spec.command.env?.policy)}`);
      const set = (spec.command.env as { set?: Record<string, unknown> }).set ?? {};
      assert.equal(set[CREDENTIAL], "<redacted>", `the credential shows as ${JSON.stringify(set[CREDENTIAL])}`);
      assert.ok(!JSON.stringify(r).includes(key), "the credential value is in the open result");
      assert.ok(spec.command.args.includes(ACP_AGENT), `the resolved spec does not run what was asked: ${JSON.stringify(spec.command)}`);
      const out = await h.api.sessionPrompt({ sessionId: r.sessionId, text: "env" });
      const env = JSON.parse(h.text(r.sessionId) || out.text || "{}");
      assert.equal(env[CREDENTIAL], key, "the credential was not set as a literal for the agent");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-AGENT-2/unknown-id-and-lane",
    covers: ["R-AGENT-2"],
    title: "an unknown catalog id is unknown_agent (stage open, the known ids in detail); a lane the entry lacks is unsupported_selector; nothing is spawned",
    async run(ctx) {
      const h = ctx.start();
      const e = await h.fail("session/open", { agent: { id: "no-such-agent-conformance", set: markerSet(ctx) } }, "unknown_agent");
      assert.equal(e.data?.stage, "open");
      assert.match(e.data?.detail ?? "", /example/, "the detail names the known ids");
      const l = await h.fail("session/open", { agent: { id: "example", lane: "cli", set: markerSet(ctx) } }, "unsupported_selector");
      assert.equal(l.data?.stage, "open");
      assert.deepEqual(ctx.leftovers(), [], "a process was spawned");
      await h.api.ping();
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-AGENT-3/undeclared-credential",
    covers: ["R-AGENT-3"],
    title: "credentials naming a variable the entry does not declare are env_refused, before anything is spawned",
    async run(ctx) {
      const h = ctx.start();
      const e = await h.fail("session/open", { agent: { id: "example", credentials: { CONF_NOT_DECLARED: "x" }, set: markerSet(ctx) } }, "env_refused");
      assert.match(e.data?.detail ?? "", /CONF_NOT_DECLARED/, "the detail names the variable");
      await h.fail(
        "session/open",
        { agent: { id: CREDENTIAL_ENTRY, lane: "acp", program: process.execPath, args: [ACP_AGENT], credentials: { PATH: "/tmp" }, set: markerSet(ctx) } },
        "env_refused",
      );
      assert.deepEqual(ctx.leftovers(), [], "a process was spawned");
      assert.equal(await h.end(), 0);
    },
  },
  {
    id: "R-AGENT-4/registry-file",
    covers: ["R-AGENT-4"],
    title: "--registry FILE: an npx agent of the registry is listed with its source and the npx command line; a malformed file stops serve at start naming the file",
    async run(ctx) {
      const good = path.join(ctx.tmp, "registry.json");
      writeFileSync(
        good,
        JSON.stringify({
          version: "1.0.0",
          agents: [{ id: "conf-npx-agent", name: "Conformance npx agent", version: "1.2.3", description: "listed, never run", distribution: { npx: { package: "@conformance/acp-agent", args: ["--acp"] } } }],
        }),
      );
      const h = ctx.start({ args: ["--registry", good] });
      const list = await h.api.agentsList({});
      const a = list.agents.find((x) => x.id === "conf-npx-agent");
      assert.ok(a, `agents/list lacks the registry's agent: ${list.agents.map((x) => x.id).join(", ")}`);
      assert.ok(a.source.includes("registry.json"), `its source is ${JSON.stringify(a.source)}`);
      assert.ok(list.agents.some((x) => x.id === "example" && x.source === "builtin"), "the built-in example agent is still listed as builtin");
      const lane = a.lanes[0];
      assert.equal(lane?.program, "npx", `its lane runs ${JSON.stringify(lane)}`);
      assert.ok(lane.args.includes("@conformance/acp-agent@1.2.3") && lane.args.includes("--acp"), `npx args ${JSON.stringify(lane.args)}`);
      assert.equal(await h.end(), 0);

      const bad = path.join(ctx.tmp, "broken-registry.json");
      writeFileSync(bad, JSON.stringify({ version: "1", agents: [{ id: "a", name: "A", version: "1", description: "d", distribution: { npx: {} } }] }));
      const b = ctx.start({ args: ["--registry", bad] });
      const code = await b.waitExit(10_000, "with a malformed registry file");
      assert.notEqual(code, 0, "serve started with a malformed registry file");
      assert.ok(b.stderr.includes("broken-registry.json"), `stderr does not name the file: ${b.stderr.slice(-500)}`);
    },
  },
];
