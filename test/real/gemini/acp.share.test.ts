// gemini-acp on a shared process (§13) through a real `a4aa serve` (see ../helpers/acp-suite.ts).
import { realAcpShareTest } from "../helpers/acp-suite.js";

realAcpShareTest("gemini-acp");
