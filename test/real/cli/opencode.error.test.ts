// opencode against the real `opencode run --format json` (opencode-ai, pinned in test/agents).: error.
import { CONFIGS } from "./helpers/configs.js";
import { realSuite } from "./helpers/real.js";

realSuite(CONFIGS.opencode, ["error"]);
