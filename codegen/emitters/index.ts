// Every target, in the order they run.
import type { Emitter } from "../emitter.js";
import { tsTypesEmitter } from "./ts-types.js";
import { tsMethodsEmitter } from "./ts-methods.js";
import { validatorsEmitter } from "./validators.js";
import { acpEmitter } from "./acp.js";
import { goEmitter } from "./go.js";
import { pythonEmitter } from "./python.js";
import { tsClientEmitter } from "./ts-client.js";
import { codexEmitter } from "./codex.js";
import { docsEmitter } from "./docs.js";
import { errorsEmitter } from "./errors.js";
import { catalogEmitter } from "./catalog.js";
import { limitsEmitter } from "./limits.js";

export const emitters: Emitter[] = [tsTypesEmitter, tsMethodsEmitter, validatorsEmitter, acpEmitter, codexEmitter, goEmitter, pythonEmitter, tsClientEmitter, errorsEmitter, limitsEmitter, docsEmitter, catalogEmitter];
