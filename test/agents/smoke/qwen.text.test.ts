// qwen, headless, against its loopback mock: the text case (see cases.ts).
import { headlessCase } from "./cases.js";

headlessCase("qwen", "text");
