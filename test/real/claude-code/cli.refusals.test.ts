// R-USAGE-1: the real `claude` (cli lane) refused by its model API (see ../helpers/refusals.ts).
import { ANTHROPIC_REFUSALS, CLAUDE_NO_RETRY, refusalSuite } from "../helpers/refusals.js";

refusalSuite({ agent: "claude", lane: "cli", driver: "claudeCode", env: CLAUDE_NO_RETRY }, ANTHROPIC_REFUSALS);
