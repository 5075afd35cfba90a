// claude, headless, against its loopback mock: the thinking case (see cases.ts).
import { headlessCase } from "./cases.js";

headlessCase("claude", "thinking");
