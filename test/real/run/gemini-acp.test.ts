// `a4aa run` with the real `gemini --acp` (see suite.ts).
import { realRunSuite } from "./suite.js";

realRunSuite("gemini-acp", { lane: "acp" });
