// claude, headless, against its loopback mock (see cases.ts).
import { headlessSuite } from "./cases.js";

headlessSuite("claude");
