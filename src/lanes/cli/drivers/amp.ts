// `amp`: Amp's `amp -x --stream-json <prompt>` (a new thread) or `amp threads continue <id>
// -x --stream-json <prompt>`, one process per turn. The stream is Claude Code's: system
// (init, with the thread id), assistant and user messages, result.
import { ClaudeStreamMapper, claudeResult } from "../claude-stream.js";
import { obj } from "../loose-json.js";
import type { SelectorRules } from "../selector-rules.js";
import type { LineParser } from "../turn-process.js";
import type { PerTurnDriver, TurnBuild } from "../turn-session.js";

export const ampRules: SelectorRules = {
  model: false,
  mode: ["smart", "rush", "deep"],
  effort: false,
  permission: ["readOnly", "bypass"],
  turnModel: false,
  turnEffort: false,
};

function ampCommand(t: TurnBuild): { args: string[]; tail: string[] } {
  const o = t.ctx.options;
  const args = t.continuing && t.nativeSessionId ? ["threads", "continue", t.nativeSessionId] : [];
  args.push("-x", "--stream-json");
  if (o.mode) args.push("--mode", o.mode);
  if (o.permission === "bypass") args.push("--dangerously-allow-all");
  return { args, tail: [t.input.text] };
}

function ampParser(): LineParser {
  let mapper: ClaudeStreamMapper | undefined;
  return {
    kind: "lines",
    line(m, sink) {
      mapper ??= new ClaudeStreamMapper(
        (e) => sink.emit(e),
        (id) => sink.sessionId(id),
      );
      const result = mapper.map(obj(m));
      if (!result) return;
      const { end } = claudeResult(result);
      if ("outcome" in end && end.outcome.usage) sink.emit({ type: "usage", ...end.outcome.usage });
      sink.end(end);
    },
  };
}

export const ampDriver: PerTurnDriver = {
  name: "amp",
  rules: ampRules,
  resume: true,
  command: ampCommand,
  parser: ampParser,
};
