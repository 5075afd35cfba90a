// gemini-acp through a real `a4aa serve` (see ../helpers/acp-suite.ts).
import { realAcpSuite } from "../helpers/acp-suite.js";

// Gemini gives its turn's tokens only as PromptResponse _meta.quota.token_count.
realAcpSuite("gemini-acp", { usageKeys: ["inputTokens", "outputTokens"] });
