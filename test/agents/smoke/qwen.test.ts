// qwen, headless, against its loopback mock (see cases.ts).
import { headlessSuite } from "./cases.js";

headlessSuite("qwen");
