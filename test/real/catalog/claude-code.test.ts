// Claude Code (cli lane, claudeCode driver) by catalog id through a real `a4aa serve` (see rig.ts).
import { realCatalogSuite } from "./rig.js";

realCatalogSuite({ agent: "claude", id: "claude-code", lane: "cli" });
