// qwen against the real `qwen` (@qwen-code/qwen-code, pinned in test/agents).: cancel.
import { CONFIGS } from "./helpers/configs.js";
import { realSuite } from "./helpers/real.js";

realSuite(CONFIGS.qwen, ["cancel"]);
