// gemini-acp through a real `a4aa serve` (see suite.ts).
import { realAcpSuite } from "./suite.js";

realAcpSuite("gemini-acp");
