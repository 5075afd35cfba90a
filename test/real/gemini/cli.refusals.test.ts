// R-USAGE-1: the real `gemini -o stream-json` (cli lane) refused by its model API (see ../helpers/refusals.ts).
import { GEMINI_REFUSALS, refusalSuite } from "../helpers/refusals.js";

refusalSuite({ agent: "gemini", lane: "cli", driver: "gemini" }, GEMINI_REFUSALS);
