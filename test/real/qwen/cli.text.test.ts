// qwen against the real `qwen` (@qwen-code/qwen-code, pinned in test/agents).: text.
import { CONFIGS } from "../helpers/cli-configs.js";
import { realSuite } from "../helpers/cli-suite.js";

realSuite(CONFIGS.qwen, ["text"]);
