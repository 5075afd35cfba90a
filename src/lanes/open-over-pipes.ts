// How the JSON-RPC lanes (acp, rpc) open a session: start the agent on pipes, then run the
// lane's handshake; if the handshake fails, everything started is stopped before the error
// goes up.
import { startPipe, type PipeProcess } from "../supervise/spawn.js";
import type { LaneContext } from "./lane.js";

export interface Handshaking {
  handshake(): Promise<void>;
  /** Ends everything the session started; never throws. */
  shutdown(): Promise<void>;
}

export async function openOverPipes<T extends Handshaking>(ctx: LaneContext, make: (proc: PipeProcess) => T): Promise<T> {
  const { spec } = ctx;
  const proc = await startPipe({
    program: spec.command.program,
    args: spec.command.args,
    cwd: ctx.cwd,
    env: ctx.env,
    name: `${spec.id} (${spec.lane})`,
  });
  const session = make(proc);
  try {
    await session.handshake();
    return session;
  } catch (e) {
    await session.shutdown();
    throw e;
  }
}
