// Qwen Code (cli lane, qwen driver) by catalog id through a real `a4aa serve` (see rig.ts).
import { realCatalogSuite } from "./rig.js";

realCatalogSuite({ agent: "qwen", id: "qwen", lane: "cli" });
