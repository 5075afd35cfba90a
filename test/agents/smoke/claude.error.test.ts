// claude, headless, against its loopback mock: the error case (see cases.ts).
import { headlessCase } from "./cases.js";

headlessCase("claude", "error");
