// What sessions may send to the host. The server implements it; sessions and lanes never
// write to stdout themselves.
import type { AgentEvent, PermissionRequest } from "../../generated/ts/types.js";
import type { FlowGate } from "../transport/ndjson-writer.js";

export interface HostChannel {
  /** Streams one `session/event` notification; `seq` is its number in the session (R-SEQ-1). */
  event(sessionId: string, event: AgentEvent, seq: number): void;
  /** Sends `permission/request`; resolves with the host's raw result (validated by the caller). */
  requestPermission(request: PermissionRequest, signal: AbortSignal): Promise<unknown>;
  /** Closed while the host is not reading: agent readers pause on it. */
  readonly gate: FlowGate;
}
