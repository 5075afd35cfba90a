// Record once, replay in CI: the helpers a host author needs. `recordingArgs(dir)` starts
// a sidecar that writes transcripts; `replaySpec(spec, file)` is the same spec with the
// agent replaced by `a4aa replay FILE` (no model, no network); `eventSummary` is what a
// replay must give again: the event types and texts in order.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { AgentEvent, AgentSpec } from "../../generated/ts/types.js";
import { parseTranscript, type ParsedTranscript } from "../../src/journal/transcript.js";
import { CLI } from "./host.js";

export function recordingArgs(dir: string): string[] {
  return ["--record", dir];
}

/** The transcripts a recording sidecar wrote, by session id. */
export function transcripts(dir: string): Map<string, ParsedTranscript> {
  const out = new Map<string, ParsedTranscript>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".jsonl"))) {
    out.set(f.slice(0, -".jsonl".length), parseTranscript(readFileSync(path.join(dir, f), "utf8"), f));
  }
  return out;
}

/** `spec` with its agent replaced by `a4aa replay FILE`, keeping the lane, driver and env policy. */
export function replaySpec(spec: AgentSpec, file: string, flags: string[] = ["--instant"]): AgentSpec {
  return { ...spec, command: { ...spec.command, program: process.execPath, args: [CLI, "replay", file, ...flags] } } as AgentSpec;
}

/** The event types and texts, in order: what a replay reproduces. */
export function eventSummary(events: AgentEvent[], skip: AgentEvent["type"][] = ["usage", "raw", "stderr"]): string[] {
  return events
    .filter((e) => !skip.includes(e.type))
    .map((e) => {
      const x = e as { type: string; text?: string; title?: string; status?: string };
      return [x.type, x.text ?? x.title ?? "", x.status ?? ""].join("|");
    });
}
