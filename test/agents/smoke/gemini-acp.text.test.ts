// gemini-acp over ACP (stdio), against its loopback mock: the text case (see cases.ts).
import { acpCase } from "./cases.js";

acpCase("gemini-acp", "text");
