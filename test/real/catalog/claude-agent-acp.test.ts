// claude-agent-acp (acp lane) by catalog id through a real `a4aa serve` (see rig.ts).
import { realCatalogSuite } from "./rig.js";

realCatalogSuite({ agent: "claude-agent-acp", id: "claude-agent-acp", lane: "acp" });
