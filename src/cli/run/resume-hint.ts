// The command `a4aa run` prints when a session ends, to continue it.
import type { RunOptions } from "./options.js";

/** The flags that reopen the same agent in the same place: the agent, its lane, --cwd when it
 * is not the shell's, and --env by name only (a value would land in the shell's history). */
export function resumeFlags(o: RunOptions, shellCwd: string): string {
  const q = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  let how = "agent" in o.target ? ` --agent ${q(o.target.agent.id)}${o.target.agent.lane ? ` --lane ${o.target.agent.lane}` : ""}` : o.label === "example agent" ? "" : " --spec …";
  if (o.cwd !== shellCwd) how += ` --cwd ${q(o.cwd)}`;
  for (const name of Object.keys(o.env)) how += ` --env ${name}`;
  return how;
}
