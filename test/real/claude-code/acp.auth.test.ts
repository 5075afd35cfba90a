// claude-agent-acp answered 401 (see ../helpers/acp-auth.ts).
import { acpAuthSuite } from "../helpers/acp-auth.js";

acpAuthSuite("claude-agent-acp", /ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL/);
