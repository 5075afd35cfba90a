// qwen against the real `qwen` (@qwen-code/qwen-code, pinned in test/agents).: error.
import { CONFIGS } from "./helpers/configs.js";
import { realSuite } from "./helpers/real.js";

realSuite(CONFIGS.qwen, ["error"]);
