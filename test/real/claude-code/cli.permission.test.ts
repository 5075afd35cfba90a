// claudeCode against the real `claude` (@anthropic-ai/claude-code, pinned in test/agents).: permission.
import { CONFIGS } from "../helpers/cli-configs.js";
import { realSuite } from "../helpers/cli-suite.js";

realSuite(CONFIGS.claudeCode, ["permission"]);
