// `a4aa run` with the real `claude` through the claudeCode CLI driver (see suite.ts).
import { realRunSuite } from "./suite.js";

realRunSuite("claude", { lane: "cli", driver: "claudeCode" });
