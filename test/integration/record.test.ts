// `a4aa serve --record DIR` through a real sidecar: R-REC-1 (no secret value in any file
// a4aa wrote, logs at debug level included), R-REC-2 (mode 0600, line by line: a sidecar
// killed with SIGKILL mid-turn leaves a parseable transcript), both sides recorded.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { AgentSpec } from "../../generated/ts/types.js";
import { TestSidecar, fakeAgentSpec, newMarker, waitNoProcesses, killMarked } from "../helpers/sidecar.js";
import { transcripts } from "../helpers/replay.js";
import { scratchDir } from "../helpers/tmp.js";

const started: TestSidecar[] = [];
const markers: string[] = [];
after(() => {
  for (const s of started) s.kill();
  for (const m of markers) killMarked(m);
});

const SPEC_SECRET = "sk-spec-5ecret-AAAA1111";
const OPEN_SECRET = "open-env-5ecret-BBBB2222";

test("R-REC-1: a secret seeded in the spec's set and the open's env appears in no file a4aa wrote, logs at debug included", async () => {
  const dir = scratchDir("a4aa-rec1");
  const marker = newMarker();
  markers.push(marker);
  const s = new TestSidecar({ args: ["--record", dir, "--log-level", "debug"], onPermission: () => ({ result: { selected: "yes" } }) });
  started.push(s);
  const acp = fakeAgentSpec(marker);
  (acp.command.env as any).set.API_KEY = SPEC_SECRET;
  const acpId = await s.open(acp, { env: { OPEN_TOKEN: OPEN_SECRET } });
  // The secret goes out in the prompt, back in the agent's text, in a permission round and in a log line.
  const r = await s.ok("session/prompt", { sessionId: acpId, text: `text:${SPEC_SECRET};permission;text:${OPEN_SECRET};noise` });
  assert.match(r.text, new RegExp(SPEC_SECRET), "the host itself still sees what the agent said");
  s.write({ jsonrpc: "2.0", method: `x/${OPEN_SECRET}` });
  // A CLI agent that prints both values to stdout and stderr.
  const cli = {
    id: "env-printer",
    lane: "cli",
    driver: "generic",
    command: {
      program: process.execPath,
      args: ["-e", "console.log(process.env.API_KEY, process.env.OPEN_TOKEN); console.error('err', process.env.API_KEY, process.env.OPEN_TOKEN)", "--"],
      env: { policy: "sanitized", inherit: ["PATH"], set: { API_KEY: SPEC_SECRET, A4AA_TEST_MARKER: marker } },
    },
  } as AgentSpec;
  const cliId = await s.open(cli, { env: { OPEN_TOKEN: OPEN_SECRET } });
  const c = await s.ok("session/prompt", { sessionId: cliId, text: "go" });
  assert.match(c.text, new RegExp(OPEN_SECRET));
  await s.waitFor(() => s.stderr.includes("ignored a notification"), 5000, "the warning");
  assert.equal(await s.end(), 0);
  assert.deepEqual(await waitNoProcesses(marker), []);

  const files = readdirSync(dir).map((f) => path.join(dir, f));
  assert.equal(files.length, 2);
  const written = [...files.map((f) => ({ name: f, bytes: readFileSync(f) })), { name: "stderr (debug)", bytes: Buffer.from(s.stderr) }];
  for (const { name, bytes } of written) {
    for (const secret of [SPEC_SECRET, OPEN_SECRET]) assert.equal(bytes.indexOf(secret), -1, `${secret} in ${name}`);
  }
  await s.stderrMatch(/x\/<redacted>/, "the warning was logged, redacted");
  const all = written.map((w) => w.bytes.toString()).join("\n");
  assert.match(all, /<redacted>/);
  assert.match(all, /<redacted>/);
  const t = transcripts(dir);
  const cliT = t.get(cliId)!;
  assert.ok(cliT.entries.some((e) => e.dir === "agentText" && /<redacted> <redacted>/.test(e.line ?? "")), "CLI stdout recorded");
  assert.ok(cliT.entries.some((e) => e.dir === "agentErr" && /err <redacted>/.test(e.line ?? "")), "CLI stderr recorded");
  const acpT = t.get(acpId)!;
  for (const dirName of ["hostIn", "hostOut", "agentIn", "agentOut", "agentStart", "agentExit"]) {
    assert.ok(acpT.entries.some((e) => e.dir === dirName), `the ACP transcript has ${dirName} lines`);
  }
  assert.equal(acpT.header.transcript, "a4aa");
  assert.equal((acpT.header.spec as any).command.env.set.API_KEY, "<redacted>");
  assert.ok(acpT.entries.every((e) => Number.isInteger(e.t) && e.t >= 0));
});

test("R-REC-2: transcripts are mode 0600, and a sidecar killed with SIGKILL mid-turn leaves every line parseable", async () => {
  const dir = scratchDir("a4aa-rec2");
  const marker = newMarker();
  markers.push(marker);
  const s = new TestSidecar({ args: ["--record", dir] });
  started.push(s);
  const sid = await s.open(fakeAgentSpec(marker));
  void s.call("session/prompt", { sessionId: sid, text: "text:before;slow:60000" }).catch(() => undefined);
  await s.waitFor(() => s.events(sid).some((e) => e.type === "messageChunk"), 10_000, "the first chunk");
  s.proc.kill("SIGKILL");
  await s.exitStatus;
  killMarked(marker);
  const file = path.join(dir, `${sid}.jsonl`);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const lines = readFileSync(file, "utf8").split("\n");
  assert.equal(lines.at(-1), "", "the file ends with a whole line");
  for (const l of lines.slice(0, -1)) JSON.parse(l);
  const t = transcripts(dir).get(sid)!;
  assert.equal(t.badLines, 0);
  assert.ok(t.entries.some((e) => e.dir === "hostOut" && JSON.stringify(e.msg).includes("before")), "the turn's event was written before the kill");
});
