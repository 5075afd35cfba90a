// Prompt content (R-CONTENT-1) through a real `a4aa serve` to a real CLI agent, against the
// loopback mock of its model API: the sidecar runs with its own TMPDIR, so that a test can
// check that the files it wrote for the agent are gone after the turn.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { prepareAgent, startMockFor, type AgentName, type AgentRun } from "../../agents/agents.js";
import type { ModelMock, RecordedRequest, Reply } from "../../agents/mocks/common.js";
import { open, withHost, type Host } from "../../integration/cli/helpers/host.js";

import { RED_PNG } from "../../helpers/png.js";

export { RED_PNG, solidPng } from "../../helpers/png.js";

export interface ContentRig {
  h: Host;
  mock: ModelMock;
  run: AgentRun;
  /** The sidecar's TMPDIR. */
  tmp: string;
  /** Opens a cli session of `driver` on the agent. */
  open(options?: Record<string, unknown>): Promise<any>;
  /** a4aa's prompt-content folders under the sidecar's TMPDIR. */
  contentDirs(): string[];
}

export async function withCliContent(agent: AgentName, driver: string, script: Reply[], fn: (r: ContentRig) => Promise<void>): Promise<void> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "a4aa-content-test-"));
  const mock = await startMockFor(agent, script);
  const run = prepareAgent(agent, mock);
  try {
    await withHost(
      async (h) => {
        const spec = { id: agent, lane: "cli", driver, command: run.command() };
        await fn({
          h,
          mock,
          run,
          tmp,
          open: (options = {}) => open(h, { spec, cwd: run.cwd, options }),
          contentDirs: () => readdirSync(tmp).filter((n) => n.startsWith("a4aa-content-")),
        });
      },
      { args: ["--log-level", "debug"], env: { ...process.env, TMPDIR: tmp } },
    );
  } finally {
    await mock.close();
    await run.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The arguments of the agent processes the sidecar started (its debug log). */
export function startedArgs(h: Host): string[][] {
  return h.stderrLines.flatMap((l) => {
    const m = /started \S+ \(pid \d+\) (\[.*\])/.exec(l);
    if (!m) return [];
    try {
      return [JSON.parse(m[1]) as string[]];
    } catch {
      return [];
    }
  });
}

/** The model request carries exactly one image part: a png of these very bytes (base64). */
export function expectOneImage(req: RecordedRequest, data: string): RecordedRequest {
  assert.equal(req.images.length, 1, "one image part reached the model");
  assert.equal(req.images[0].mimeType, "image/png");
  assert.equal(req.images[0].data, data, "the very bytes of the prompt");
  return req;
}

/** An embedded text file, as the image tests send it beside (or after) an image. */
export const NOTES_FILE = { type: "resource", uri: "file:///repo/notes.txt", mimeType: "text/plain", text: "remember the colour" } as const;

/**
 * Asks "What is in the picture?" with the red square (and `beside` it, more content) in
 * session `sessionId` of a mock scripted to answer "A red square.": the turn ends normally
 * with that answer and the model's first main request holds the prompt and that one image.
 */
export async function askRedSquare(
  request: (method: "session/prompt", params: Record<string, unknown>) => Promise<any>,
  sessionId: string,
  mock: ModelMock,
  beside: readonly object[] = [],
): Promise<{ out: any; req: RecordedRequest }> {
  const out = await request("session/prompt", {
    sessionId,
    text: "What is in the picture?",
    content: [{ type: "image", mimeType: "image/png", data: RED_PNG }, ...beside],
  });
  assert.equal(out.stopReason, "endTurn");
  assert.match(out.text, /A red square\./);
  const req = expectOneImage(mock.mainRequests()[0], RED_PNG);
  assert.match(JSON.stringify(req.body), /What is in the picture\?/);
  return { out, req };
}
