// The transcript format (`a4aa serve --record DIR`, a4aa.v1 §12): a header line, then one
// line per message or output line on either side of the sidecar.
export const TRANSCRIPT_VERSION = 1;

/**
 * hostIn/hostOut: host → sidecar / sidecar → host. agentIn: what the sidecar wrote to an
 * agent's stdin; agentOut: the agent's stdout lines; agentErr: its stderr lines; agentPty:
 * PTY output chunks; agentText: pieces of the stdout of a CLI read as text (not
 * lines), replayed as they are; agentStart/agentExit: a process of the session started / ended.
 */
export type TranscriptDir = "hostIn" | "hostOut" | "agentIn" | "agentOut" | "agentErr" | "agentPty" | "agentText" | "agentStart" | "agentExit";

export interface TranscriptHeader {
  transcript: "a4aa";
  version: number;
  sessionId: string;
  spec: unknown;
  options: unknown;
  startedAt: string;
}

export interface TranscriptEntry {
  /** ms since the header's startedAt. */
  t: number;
  dir: TranscriptDir;
  /** A JSON message (a line that parsed as a JSON object). */
  msg?: unknown;
  /** A line of text that is not a JSON object (CLI output, stderr, a PTY chunk). */
  line?: string;
  /** Which process of the session (1 = the first started) for agent* entries. */
  p?: number;
}

export interface ParsedTranscript {
  header: TranscriptHeader;
  entries: TranscriptEntry[];
  /** Lines that did not parse (a sidecar killed mid-write leaves at most the last one). */
  badLines: number;
}

/** Parses a transcript's text; throws a readable error if it is not one. */
export function parseTranscript(text: string, name = "the transcript"): ParsedTranscript {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (!lines.length) throw new Error(`${name} is empty: expected a header line {"transcript":"a4aa",...}`);
  let header: TranscriptHeader;
  try {
    header = JSON.parse(lines[0]) as TranscriptHeader;
  } catch (e) {
    throw new Error(`${name}: the first line is not JSON (${(e as Error).message}); is it an a4aa transcript?`);
  }
  if (header?.transcript !== "a4aa") throw new Error(`${name}: the first line is not an a4aa transcript header ({"transcript":"a4aa",...})`);
  if (header.version !== TRANSCRIPT_VERSION) {
    throw new Error(`${name} is transcript version ${header.version}; this a4aa reads version ${TRANSCRIPT_VERSION}`);
  }
  const entries: TranscriptEntry[] = [];
  let badLines = 0;
  for (const l of lines.slice(1)) {
    try {
      entries.push(JSON.parse(l) as TranscriptEntry);
    } catch {
      badLines++;
    }
  }
  return { header, entries, badLines };
}
