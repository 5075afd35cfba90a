// codex against the real `codex exec --json` (@openai/codex, pinned in test/agents).: cancel.
import { CONFIGS } from "./helpers/configs.js";
import { realSuite } from "./helpers/real.js";

realSuite(CONFIGS.codex, ["cancel"]);
