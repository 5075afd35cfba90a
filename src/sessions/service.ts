// What the server asks of the session layer: one method per host → sidecar session
// request, and closing everything at shutdown. SessionManager implements it; the server
// receives it through its options, so the server depends on sessions and not back.
import type { ParamsOf, ResultOf } from "../../generated/ts/methods.js";

export interface SessionService {
  open(params: ParamsOf<"session/open">): Promise<ResultOf<"session/open">>;
  prompt(params: ParamsOf<"session/prompt">): Promise<ResultOf<"session/prompt">>;
  cancel(params: ParamsOf<"session/cancel">): Promise<ResultOf<"session/cancel">>;
  history(params: ParamsOf<"session/history">): ResultOf<"session/history"> | Promise<ResultOf<"session/history">>;
  close(params: ParamsOf<"session/close">): Promise<ResultOf<"session/close">>;
  prewarm(params: ParamsOf<"agents/prewarm">): Promise<ResultOf<"agents/prewarm">>;
  /** Closes every session; resolves false when any cleanup failed. */
  closeAll(): Promise<boolean>;
}
