// Gemini CLI (acp lane, gemini --acp) by catalog id through a real `a4aa serve` (see rig.ts).
import { realCatalogSuite } from "./rig.js";

realCatalogSuite({ agent: "gemini-acp", id: "gemini", lane: "acp" });
