// Broken: TurnOutcome.text is every chunk of the turn, however much (no bound, no
// marker). Caught by R-HOSTILE-2.
import { runProxy } from "./proxy.js";

const texts = new Map<unknown, string[]>();
let last: unknown;
runProxy({
  parseLimit: 256 * 1024 * 1024,
  fromSidecar: (m) => {
    if (m.method === "session/event" && m.params?.event?.type === "messageChunk") {
      last = m.params.sessionId;
      const list = texts.get(last) ?? [];
      list.push(m.params.event.text);
      texts.set(last, list);
    } else if (m.method === undefined && m.result && typeof m.result.stopReason === "string" && texts.has(last)) {
      const full = texts.get(last)!.join("");
      texts.delete(last);
      return { ...m, result: { ...m.result, text: full } };
    }
  },
});
