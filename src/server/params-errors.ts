// Turns ajv's errors into a message a person can act on, e.g.
// `/spec/command: must have required property 'env'`.
import type { ErrorObject } from "ajv";

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "additionalProperties":
      return `unknown field ${JSON.stringify(p.additionalProperty)}`;
    case "unevaluatedProperties":
      return `unknown field ${JSON.stringify(p.unevaluatedProperty)}`;
    case "required":
      return `missing required field ${JSON.stringify(p.missingProperty)}`;
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case "discriminator":
      return p.error === "tag"
        ? `missing or non-string ${JSON.stringify(p.tag)}`
        : `${JSON.stringify(p.tag)} is ${JSON.stringify(p.tagValue)}, which is not one of the known values`;
    default:
      return e.message ?? e.keyword;
  }
}

export function formatParamsErrors(errs: ErrorObject[] | null | undefined, root = "params"): string {
  if (!errs || errs.length === 0) return `${root} are invalid`;
  return errs.map((e) => `${root}${e.instancePath || ""}: ${describe(e)}`).join("; ");
}
