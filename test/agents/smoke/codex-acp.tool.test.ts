// codex-acp over ACP (stdio), against its loopback mock: the tool case (see cases.ts).
import { acpCase } from "./cases.js";

acpCase("codex-acp", "tool");
