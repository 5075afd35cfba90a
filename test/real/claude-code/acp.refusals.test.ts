// R-USAGE-1: the real claude-agent-acp (acp lane) refused by its model API (see ../helpers/refusals.ts).
import { ANTHROPIC_REFUSALS, CLAUDE_NO_RETRY, refusalSuite } from "../helpers/refusals.js";

refusalSuite({ agent: "claude-agent-acp", lane: "acp", env: CLAUDE_NO_RETRY }, ANTHROPIC_REFUSALS);
