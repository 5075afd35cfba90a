// R-SANDBOX-1/2 with a real agent: Gemini CLI (`gemini --acp`, opened by catalog id) inside
// {filesystem: "cwd", network: "model"} completes a tool turn against its loopback mock —
// once with the mock as the sidecar's --sandbox-model-endpoint, once behind custody (the
// proxy is then the one address, and the mock gets the real key). Its settings reach it
// through the catalog's sandboxHome (copied into the private home); the shell command it
// runs writes into the cwd and cannot read the sidecar's HOME; nothing is left after close.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { INSTALL_HINT, agentsInstalled } from "../../agents/agents.js";
import { processesWithMarker } from "../../helpers/sidecar.js";
import { catalogRig, reply, teardown } from "../catalog/rig.js";
import { probe } from "../../../src/sandbox/support.js";

const support = await probe(process.env);
const skip = !agentsInstalled(["gemini-acp"]) ? INSTALL_HINT : support.available ? false : `this machine cannot sandbox: ${support.detail}`;
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const allowOnce = (p: any) => {
  const o = p.options.find((x: { kind: string }) => x.kind === "allowOnce");
  return o ? { result: { selected: o.optionId } } : { result: { cancelled: true } };
};
const endpointOf = (url: string) => new URL(url).host;

describe("sandbox: gemini --acp", { skip }, () => {
  for (const custody of [false, true]) {
    const how = custody ? "behind custody (the proxy is the one address)" : "with --sandbox-model-endpoint at its mock";
    test(`R-SANDBOX-1: gemini completes a tool turn in {filesystem: cwd, network: model} ${how}`, { timeout: 150_000 }, async () => {
      const secret = `host-home-secret-${Date.now()}`;
      const cmd = `echo sandboxed-ok > result.txt; cat "$HOME/host-only.txt" 2>&1; ls /proc | grep -c '^[0-9]'`;
      const r = await catalogRig("gemini-acp", "gemini", [reply.shell(cmd), reply.text("Tool turn finished.")], allowOnce, (mock) => (custody ? [] : ["--sandbox-model-endpoint", endpointOf(mock.url)]));
      try {
        // In the sidecar's (and gemini's) HOME, not in the catalog's sandboxHome: never copied in.
        writeFileSync(path.join(r.run.home, "host-only.txt"), secret);
        const open = await r.open({ options: { permission: "ask", sandbox: { filesystem: "cwd", network: "model" }, ...(custody ? { custody: "proxy" } : {}) } });
        assert.deepEqual(open.capabilities.sandbox, { available: true, filesystem: "cwd", network: "model" });
        assert.notEqual(open.shared, true);
        const out = await r.s.ok("session/prompt", { sessionId: open.sessionId, text: "Run the command." });
        assert.equal(out.stopReason, "endTurn");
        assert.match(out.text, /Tool turn finished\./);
        assert.equal(readFileSync(path.join(r.run.cwd, "result.txt"), "utf8"), "sandboxed-ok\n", "the tool ran in the cwd");
        const tool = JSON.stringify(r.s.events(open.sessionId).filter((e) => e.type === "toolCallUpdate"));
        assert.ok(!tool.includes(secret), "the tool could not read the sidecar's HOME");
        assert.ok(processesWithMarker(r.marker).some((pid) => readFileSync(`/proc/${pid}/cmdline`, "latin1").startsWith(support.bwrap!)), "gemini runs under bubblewrap");
        const main = r.mock.mainRequests();
        assert.ok(main.length >= 2, "the turn and the tool's follow-up reached the mock");
        if (custody) {
          const key = r.credentials.GEMINI_API_KEY!;
          for (const q of main) assert.equal(q.secretDigests["x-goog-api-key"], sha(key), "the proxy added the real key");
        }
        await r.s.ok("session/close", { sessionId: open.sessionId });
        assert.ok(!existsSync(path.join(r.run.home, "result.txt")));
      } finally {
        await teardown(r);
      }
    });
  }
});
