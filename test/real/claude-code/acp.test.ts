// claude-agent-acp through a real `a4aa serve` (see ../helpers/acp-suite.ts).
import { realAcpSuite } from "../helpers/acp-suite.js";

realAcpSuite("claude-agent-acp", { usageKeys: ["inputTokens", "outputTokens", "cachedInputTokens", "totalTokens", "costUsd"] });
