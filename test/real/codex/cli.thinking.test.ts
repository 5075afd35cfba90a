// codex against the real `codex exec --json` (@openai/codex, pinned in test/agents).: thinking.
import { CONFIGS } from "../helpers/cli-configs.js";
import { realSuite } from "../helpers/cli-suite.js";

realSuite(CONFIGS.codex, ["thinking"]);
