// codex-acp over ACP (stdio), against its loopback mock (see cases.ts).
import { acpSuite } from "./cases.js";

acpSuite("codex-acp");
