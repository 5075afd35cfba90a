// R-USAGE-1: the real `gemini --acp` refused by its model API (see ../helpers/refusals.ts).
import { GEMINI_REFUSALS, refusalSuite } from "../helpers/refusals.js";

refusalSuite({ agent: "gemini-acp", lane: "acp" }, GEMINI_REFUSALS);
