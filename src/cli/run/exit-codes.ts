// `a4aa run`'s exit status: from a turn's outcome.
import type { TurnOutcome } from "../../../clients/ts/index.js";

export const EXIT = { ok: 0, error: 1, cancelled: 130 } as const;

export function exitFor(outcome: TurnOutcome): number {
  if (outcome.stopReason === "endTurn") return EXIT.ok;
  if (outcome.stopReason === "cancelled") return EXIT.cancelled;
  // maxTokens, maxTurnRequests, refusal: the turn did not finish its work.
  return ["maxTokens", "maxTurnRequests", "refusal"].includes(outcome.stopReason) ? EXIT.error : EXIT.ok;
}
