// Every check of the suite, in report order.
import type { Check } from "../harness/context.js";
import { framingChecks } from "./framing.js";
import { fuzzChecks } from "./fuzz.js";
import { sessionChecks } from "./sessions.js";
import { envChecks, permissionChecks } from "./permissions-env.js";
import { lifecycleChecks } from "./lifecycle.js";
import { supervisionChecks } from "./supervision.js";
import { acpChecks, cliChecks, rpcChecks } from "./lanes.js";
import { hostileChecks } from "./hostile.js";
import { journalChecks } from "./journal.js";
import { catalogChecks } from "./catalog.js";
import { capabilityChecks } from "./capabilities-1-2.js";
import { remoteChecks } from "./remote.js";
import { costChecks } from "./cost.js";

export const CHECKS: Check[] = [...framingChecks, ...fuzzChecks, ...sessionChecks, ...permissionChecks, ...envChecks, ...lifecycleChecks, ...supervisionChecks, ...acpChecks, ...rpcChecks, ...cliChecks, ...hostileChecks, ...journalChecks, ...catalogChecks, ...capabilityChecks, ...remoteChecks, ...costChecks];
