// opencode against the real `opencode run --format json` (opencode-ai, pinned in test/agents).: cancel.
import { CONFIGS } from "./helpers/configs.js";
import { realSuite } from "./helpers/real.js";

realSuite(CONFIGS.opencode, ["cancel"]);
