// opencode against the real `opencode run --format json` (opencode-ai, pinned in test/agents).: error.
import { CONFIGS } from "../helpers/cli-configs.js";
import { realSuite } from "../helpers/cli-suite.js";

realSuite(CONFIGS.opencode, ["error"]);
