// Every check of the suite, in report order.
import type { Check } from "../harness/context.js";
import { framingChecks } from "./framing.js";
import { sessionChecks } from "./sessions.js";
import { envChecks, permissionChecks } from "./permissions-env.js";
import { lifecycleChecks } from "./lifecycle.js";
import { acpChecks, cliChecks, rpcChecks } from "./lanes.js";
import { journalChecks } from "./journal.js";

export const CHECKS: Check[] = [...framingChecks, ...sessionChecks, ...permissionChecks, ...envChecks, ...lifecycleChecks, ...acpChecks, ...rpcChecks, ...cliChecks, ...journalChecks];
