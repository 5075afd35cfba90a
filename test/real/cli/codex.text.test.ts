// codex against the real `codex exec --json` (@openai/codex, pinned in test/agents).: text.
import { CONFIGS } from "./helpers/configs.js";
import { realSuite } from "./helpers/real.js";

realSuite(CONFIGS.codex, ["text"]);
