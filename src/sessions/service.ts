// What the server asks of the session layer: one method per host → sidecar session
// request, and closing everything at shutdown. SessionManager implements it; the server
// receives it through its options, so the server depends on sessions and not back. One
// instance serves every connection (§15): each call names its caller, the connection, whose
// tenant scopes what it may see.
import type { ParamsOf, ResultOf } from "../../generated/ts/methods.js";
import type { Viewer } from "./attachments.js";

export type { Viewer };

export interface SessionService {
  open(params: ParamsOf<"session/open">, caller: Viewer): Promise<ResultOf<"session/open">>;
  prompt(params: ParamsOf<"session/prompt">, caller: Viewer): Promise<ResultOf<"session/prompt">>;
  cancel(params: ParamsOf<"session/cancel">, caller: Viewer): Promise<ResultOf<"session/cancel">>;
  history(params: ParamsOf<"session/history">, caller: Viewer): ResultOf<"session/history"> | Promise<ResultOf<"session/history">>;
  close(params: ParamsOf<"session/close">, caller: Viewer): Promise<ResultOf<"session/close">>;
  prewarm(params: ParamsOf<"agents/prewarm">): Promise<ResultOf<"agents/prewarm">>;
  /** Attaches the caller; `finish` replays the journal and must run right after the answer is written. */
  attach(params: ParamsOf<"session/attach">, caller: Viewer): { result: ResultOf<"session/attach">; finish: () => void };
  detach(params: ParamsOf<"session/detach">, caller: Viewer): ResultOf<"session/detach">;
  list(caller: Viewer): ResultOf<"sessions/list">;
  /** The caller's connection ended. */
  detachEverywhere(caller: Viewer): void;
  /** R-REMOTE-9: refuse every open from now on (`draining`); what runs goes on. */
  drain(): void;
  /** Closes every session; resolves false when any cleanup failed. */
  closeAll(): Promise<boolean>;
}
