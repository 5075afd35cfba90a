// Codex (rpc lane, codex app-server) by catalog id through a real `a4aa serve` (see rig.ts).
import { realCatalogSuite } from "./rig.js";

realCatalogSuite({ agent: "codex", id: "codex", lane: "rpc" });
