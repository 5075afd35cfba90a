// gemini against the real `gemini -o stream-json` (@google/gemini-cli, pinned in test/agents).: tool.
import { CONFIGS } from "./helpers/configs.js";
import { realSuite } from "./helpers/real.js";

realSuite(CONFIGS.gemini, ["tool"]);
