// gemini against the real `gemini -o stream-json` (@google/gemini-cli, pinned in test/agents).: tool.
import { CONFIGS } from "../helpers/cli-configs.js";
import { realSuite } from "../helpers/cli-suite.js";

realSuite(CONFIGS.gemini, ["tool"]);
