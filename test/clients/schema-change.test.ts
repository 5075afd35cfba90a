// A field renamed in the schema changes all three clients in one codegen run, and host code
// that used the old name stops compiling (Go), type-checking (mypy) and type-checking (tsc).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadModel, defaultSource, type ProtocolModel } from "../../codegen/model.js";
import { goEmitter } from "../../codegen/emitters/go.js";
import { pythonEmitter } from "../../codegen/emitters/python.js";
import { tsClientEmitter } from "../../codegen/emitters/ts-client.js";
import { tsTypesEmitter } from "../../codegen/emitters/ts-types.js";
import { errorsEmitter } from "../../codegen/emitters/errors.js";
import { limitsEmitter } from "../../codegen/emitters/limits.js";
import type { GeneratedFile } from "../../codegen/emitter.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const EMITTERS = [goEmitter, pythonEmitter, tsTypesEmitter, tsClientEmitter, errorsEmitter, limitsEmitter];

/** The schema with TurnOutcome.stopReason renamed to finishReason. */
function renamedSchema(): string {
  const doc = JSON.parse(readFileSync(path.join(ROOT, defaultSource), "utf8"));
  const outcome = doc.components.schemas.TurnOutcome;
  outcome.properties = Object.fromEntries(Object.entries(outcome.properties).map(([k, v]) => [k === "stopReason" ? "finishReason" : k, v]));
  outcome.required = outcome.required.map((k: string) => (k === "stopReason" ? "finishReason" : k));
  return JSON.stringify(doc, null, 2) + "\n";
}

async function generate(model: ProtocolModel): Promise<Map<string, string>> {
  const files: GeneratedFile[] = [];
  for (const e of EMITTERS) files.push(...(await e.emit(model)));
  return new Map(files.map((f) => [f.path, f.content]));
}

function which(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: 180_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

// Host code written against the current schema; each must fail once the field is renamed.
const GO_HOST = `package a4aa

func hostUsesStopReason(out *TurnOutcome) bool { return out.StopReason == StopReasonEndTurn }
`;
const PY_HOST = `from a4aa import TurnOutcome


def host_uses_stop_reason(out: TurnOutcome) -> bool:
    return out.stop_reason == "endTurn"
`;
const TS_HOST = `import type { A4aaClient } from "./clients/ts/index.js";

export async function hostUsesStopReason(c: A4aaClient): Promise<boolean> {
  const out = await c.sessionPrompt({ sessionId: "s", text: "hi" });
  return out.stopReason === "endTurn";
}
`;

/** Lays the clients out in dir with the given generated files, plus each host snippet. */
function layout(dir: string, files: Map<string, string>): void {
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(ROOT, "clients/go"), path.join(dir, "clients/go"), { recursive: true, filter: (p) => !p.endsWith("_test.go") && !p.includes(`${path.sep}examples`) });
  cpSync(path.join(ROOT, "clients/python/src"), path.join(dir, "clients/python/src"), { recursive: true, filter: (p) => !p.includes("__pycache__") && !p.endsWith(".egg-info") });
  cpSync(path.join(ROOT, "clients/ts"), path.join(dir, "clients/ts"), { recursive: true });
  // The TS client runs on the package's own NdjsonPeer (src/transport needs only src/errors.ts,
  // which reads the generated error table).
  cpSync(path.join(ROOT, "src/transport"), path.join(dir, "src/transport"), { recursive: true });
  cpSync(path.join(ROOT, "src/errors.ts"), path.join(dir, "src/errors.ts"));
  mkdirSync(path.join(dir, "generated/ts"), { recursive: true });
  for (const [p, content] of files) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), content);
  }
  writeFileSync(path.join(dir, "clients/go/host_snippet.go"), GO_HOST);
  writeFileSync(path.join(dir, "host_snippet.py"), PY_HOST);
  writeFileSync(path.join(dir, "host_snippet.ts"), TS_HOST);
  // ESM, as in the repository (the TS client uses import.meta).
  writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }\n');
  // The TS client's own dependencies (ws for remote hosts) resolve as in the repository.
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
}

interface Checks {
  go?: { ok: boolean; out: string };
  python?: { ok: boolean; out: string };
  ts: { ok: boolean; out: string };
}

function check(dir: string): Checks {
  const result: Checks = {
    ts: run(process.execPath, [
      path.join(ROOT, "node_modules/typescript/bin/tsc"),
      "--noEmit", "--strict", "--skipLibCheck", "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext",
      "--types", "node", "--typeRoots", path.join(ROOT, "node_modules/@types"),
      "host_snippet.ts",
    ], dir),
  };
  if (which("go")) result.go = run("go", ["vet", "."], path.join(dir, "clients/go"), { ...process.env, GOFLAGS: "-mod=mod" });
  if (which("mypy")) {
    result.python = run("mypy", ["--strict", "--no-incremental", "--cache-dir", path.join(dir, ".mypy_cache"), "host_snippet.py"], dir, {
      ...process.env,
      MYPYPATH: path.join(dir, "clients/python/src"),
    });
  }
  return result;
}

test("renaming a schema field changes all three clients and breaks host code that used it", { timeout: 600_000 }, async (t) => {
  const before = await generate(loadModel(defaultSource, readFileSync(path.join(ROOT, defaultSource), "utf8")));
  const after = await generate(loadModel(defaultSource, renamedSchema()));
  const changed = [...after.keys()].filter((p) => before.get(p) !== after.get(p)).sort();
  // One codegen run, one diff: the Go, Python and TS clients' types all change.
  for (const p of ["clients/go/types_gen.go", "clients/python/src/a4aa/_generated_protocol.py", "generated/ts/types.ts"]) {
    assert.ok(changed.includes(p), `${p} did not change (changed: ${changed.join(", ")})`);
  }
  // The committed generated files are what the current schema gives (codegen:check's job too).
  for (const [p, content] of before) assert.equal(readFileSync(path.join(ROOT, p), "utf8"), content, `${p} is stale: run npm run codegen`);

  const tmp = mkdtempSync(path.join(os.tmpdir(), "a4aa-schema-change-"));
  try {
    layout(path.join(tmp, "before"), before);
    layout(path.join(tmp, "after"), after);
    const ok = check(path.join(tmp, "before"));
    const broken = check(path.join(tmp, "after"));

    assert.ok(ok.ts.ok, `TS host code should type-check against the current schema:\n${ok.ts.out}`);
    assert.ok(!broken.ts.ok && /stopReason/.test(broken.ts.out), `TS host code still type-checks after the rename:\n${broken.ts.out}`);
    // go and mypy are prerequisites (CI installs them): a missing one fails, it is not passed over.
    assert.ok(ok.go && broken.go, "go is not installed: the Go host code cannot be checked (install go, see .ci/run)");
    {
      assert.ok(ok.go.ok, `Go host code should compile against the current schema:\n${ok.go.out}`);
      assert.ok(!broken.go.ok && /StopReason/.test(broken.go.out), `Go host code still compiles after the rename:\n${broken.go.out}`);
    }
    assert.ok(ok.python && broken.python, "mypy is not installed: the Python host code cannot be checked (pip install mypy, see .ci/run)");
    {
      assert.ok(ok.python.ok, `Python host code should type-check against the current schema:\n${ok.python.out}`);
      assert.ok(!broken.python.ok && /stop_reason/.test(broken.python.out), `Python host code still type-checks after the rename:\n${broken.python.out}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
