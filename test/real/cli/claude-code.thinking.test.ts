// claudeCode against the real `claude` (@anthropic-ai/claude-code, pinned in test/agents).: thinking.
import { CONFIGS } from "./helpers/configs.js";
import { realSuite } from "./helpers/real.js";

realSuite(CONFIGS.claudeCode, ["thinking"]);
