// `a4aa replay FILE [--instant] [--strict] [AGENT ARGS…]`: everything after FILE that is
// not one of the two flags is the argv the lane gave the agent (a per-turn CLI's prompt).
import { UsageError } from "./args.js";
import { replay } from "../replay/replay.js";

export const REPLAY_HELP = `Usage: a4aa replay FILE [--instant] [--strict]

Plays the agent side of a transcript written by 'a4aa serve --record DIR' on stdin/stdout:
use it as a spec's command ({"program": "a4aa", "args": ["replay", FILE]}) on the lane the
session was recorded on, and the host gets the recorded events again, with no model and no
network. Permission requests are asked of the host again; an answer the transcript did not
record fails the turn.

Options:
  --instant   do not wait the recorded delays
  --strict    fail a turn whose prompt differs from the recorded one (default: answer it
              with the next recorded turn)
`;

export async function replayCommand(argv: string[]): Promise<number> {
  let instant = false;
  let strict = false;
  let file: string | undefined;
  const rest: string[] = [];
  for (const a of argv) {
    if (file === undefined && (a === "--help" || a === "-h")) {
      process.stdout.write(REPLAY_HELP);
      return 0;
    }
    if (a === "--instant") instant = true;
    else if (a === "--strict") strict = true;
    else if (file === undefined) {
      if (a.startsWith("-")) throw new UsageError(`unknown option ${a}`, "a4aa replay --help");
      file = a;
    } else rest.push(a);
  }
  if (!file) throw new UsageError("a4aa replay needs the transcript FILE", "a4aa replay --help");
  try {
    return await replay(file, rest, { instant, strict });
  } catch (e) {
    process.stderr.write(`a4aa replay: ${(e as Error).message}\n`);
    return 1;
  }
}
