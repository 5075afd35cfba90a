// codex-acp through a real `a4aa serve` (see ../helpers/acp-suite.ts). Codex asks only when the model
// requests an unsandboxed run (`sandbox_permissions: "require_escalated"`), as a real
// model does for a write its sandbox refuses.
import { reply } from "../../agents/mocks/common.js";
import { realAcpSuite } from "../helpers/acp-suite.js";

realAcpSuite("codex-acp", {
  askingMode: "read-only",
  usageKeys: ["inputTokens", "outputTokens", "cachedInputTokens", "reasoningTokens", "totalTokens"],
  toolCall: (cmd) => reply.tool("exec_command", { cmd, sandbox_permissions: "require_escalated", justification: "Write result.txt" }),
});
