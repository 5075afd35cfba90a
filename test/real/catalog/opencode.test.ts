// opencode (cli lane: it asks nothing, so no permission case) by catalog id through a real `a4aa serve` (see rig.ts).
import { realCatalogSuite } from "./rig.js";

realCatalogSuite({ agent: "opencode", id: "opencode", lane: "cli", toolCall: null });
