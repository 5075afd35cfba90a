// claude-agent-acp traced (see ../helpers/acp-otel.ts).
import { acpOtelSuite } from "../helpers/acp-otel.js";

acpOtelSuite("claude-agent-acp", "anthropic");
