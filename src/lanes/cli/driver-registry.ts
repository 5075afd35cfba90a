// The CLI drivers by name (src/lanes/cli/drivers/<name>.ts). Per-turn CLIs share the turn
// runner (turn-session.ts, turn-process.ts); Claude Code and Qwen Code keep one process
// per session that speaks their stream-json control protocol (stream-json-session.ts).
import type { CliAgentSpec, CliDriver } from "../../../generated/ts/types.js";
import { errors } from "../../errors.js";
import { ampDriver } from "./drivers/amp.js";
import { claudeCodeFlavor } from "./drivers/claude-code.js";
import { codexDriver } from "./drivers/codex.js";
import { cursorAgentDriver } from "./drivers/cursor-agent.js";
import { geminiDriver } from "./drivers/gemini.js";
import { genericDriver } from "./drivers/generic.js";
import { opencodeDriver } from "./drivers/opencode.js";
import { qwenFlavor } from "./drivers/qwen.js";
import type { McpHandover } from "./mcp-handover.js";
import type { SelectorRules } from "./selector-rules.js";
import type { StreamJsonFlavor } from "./stream-json-flavor.js";
import type { PerTurnDriver } from "./turn-session.js";

export type DriverEntry = { kind: "perTurn"; driver: PerTurnDriver } | { kind: "streamJson"; flavor: StreamJsonFlavor };

const DRIVERS: Record<CliDriver, DriverEntry> = {
  claudeCode: { kind: "streamJson", flavor: claudeCodeFlavor },
  qwen: { kind: "streamJson", flavor: qwenFlavor },
  codex: { kind: "perTurn", driver: codexDriver },
  gemini: { kind: "perTurn", driver: geminiDriver },
  opencode: { kind: "perTurn", driver: opencodeDriver },
  cursorAgent: { kind: "perTurn", driver: cursorAgentDriver },
  amp: { kind: "perTurn", driver: ampDriver },
  generic: { kind: "perTurn", driver: genericDriver },
};

/** The driver a spec names; unsupported_selector (stage open) for a name a4aa does not know. */
export function driverOf(spec: CliAgentSpec): DriverEntry {
  const e = DRIVERS[spec.driver];
  if (!e) throw errors.unsupportedSelector("open", `unknown cli driver ${JSON.stringify(spec.driver)}`);
  return e;
}

export const rulesOf = (e: DriverEntry): SelectorRules => (e.kind === "perTurn" ? e.driver.rules : e.flavor.rules);
export const mcpOf = (e: DriverEntry): McpHandover | undefined => (e.kind === "perTurn" ? e.driver.mcp : e.flavor.mcp);
export const resumableOf = (e: DriverEntry): boolean => (e.kind === "perTurn" ? e.driver.resume : true);
