// qwen, headless, against its loopback mock: the tool case (see cases.ts).
import { headlessCase } from "./cases.js";

headlessCase("qwen", "tool");
