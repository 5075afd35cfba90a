// `a4aa run --attach` and `--mcp-config` in plain pipes: files become prompt content (§11) that
// reaches the agent (the bundled example agent says what it received); bad files are usage errors.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { execa } from "execa";
import { CLI, exampleAgentSpec, newMarker, waitNoProcesses } from "../../helpers/sidecar.js";
import { scratchDir } from "../../helpers/tmp.js";

/** A 1x1 PNG (68 bytes). */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

function run(args: string[], cwd: string, marker: string, input = "") {
  return execa(process.execPath, [CLI, "run", "--spec", JSON.stringify(exampleAgentSpec(marker)), ...args], {
    reject: false,
    timeout: 60_000,
    cwd,
    input,
    env: { A4AA_TEST_MARKER: marker, NO_COLOR: "", FORCE_COLOR: "" },
  });
}

test("R-CONTENT-1: --attach sends an image and a text file with the prompt; the agent receives both, in order", async () => {
  const dir = scratchDir("a4aa-run-attach");
  writeFileSync(path.join(dir, "shot.png"), PNG);
  writeFileSync(path.join(dir, "notes.md"), "# Notes\nsecond line\n");
  const marker = newMarker();
  const r = await run(["--attach", "shot.png", "--attach", "notes.md", "/echo what is this"], dir, marker);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /^attached: shot\.png \(image\/png, 68 bytes\), notes\.md \(2 lines\)$/m);
  const notes = `file://${path.join(dir, "notes.md")}`;
  assert.ok(r.stdout.includes(`I received an image (image/png, 68 bytes), ${notes} (2 lines). what is this`), r.stdout);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("--attach with no prompt and no terminal: the attachments are the prompt", async () => {
  const dir = scratchDir("a4aa-run-attach");
  writeFileSync(path.join(dir, "shot.png"), PNG);
  const marker = newMarker();
  const r = await run(["--json", "--attach", "shot.png"], dir, marker);
  assert.equal(r.exitCode, 0, r.stderr);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const text = lines.filter((l) => l.event?.type === "messageChunk").map((l) => l.event.text).join("");
  assert.match(text, /^I received an image \(image\/png, 68 bytes\)\./);
  assert.equal(lines.at(-1).outcome.stopReason, "endTurn");
});

test("--attach refuses what it cannot send, before anything starts (usage error, exit 2)", async () => {
  const dir = scratchDir("a4aa-run-attach");
  writeFileSync(path.join(dir, "blob.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
  const marker = newMarker();
  const missing = await run(["--attach", "nope.png", "x"], dir, marker);
  assert.equal(missing.exitCode, 2);
  assert.match(missing.stderr, /--attach: cannot attach nope\.png: no such file/);
  const binary = await run(["--attach", "blob.bin", "x"], dir, marker);
  assert.equal(binary.exitCode, 2);
  assert.match(binary.stderr, /cannot attach blob\.bin: it is neither text \(UTF-8\) nor a png, jpeg, gif or webp image/);
  const folder = await run(["--attach", ".", "x"], dir, marker);
  assert.equal(folder.exitCode, 2);
  assert.match(folder.stderr, /it is not a regular file/);
  assert.deepEqual(await waitNoProcesses(marker), []);
});

test("--mcp-config: a file in the .mcp.json form that is not an MCP server is a usage error naming the server", async () => {
  const dir = scratchDir("a4aa-run-mcp");
  writeFileSync(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { docs: { url: "http://127.0.0.1:1/mcp" } } }));
  const marker = newMarker();
  const r = await run(["--mcp-config", ".mcp.json", "x"], dir, marker);
  assert.equal(r.exitCode, 2);
  assert.match(r.stderr, /--mcp-config: server "docs" is not an MCP server a4aa knows/);
  const notJson = await run(["--mcp-config", "{nope", "x"], dir, marker);
  assert.equal(notJson.exitCode, 2);
  assert.match(notJson.stderr, /--mcp-config is not valid JSON/);
});
