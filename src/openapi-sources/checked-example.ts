import { validatorFor } from "../mcp/federation/json-schema-validator.ts";
import { patternIssues } from "./check-patterns.ts";
import type { OpenApiOperation } from "./operation.ts";

/**
 * `operation` without its example when the checks its calls go through (the validator, then the
 * patterns on RE2) refuse it: specs' own examples are often wrong (GitHub's REST description
 * has seven that its schemas refuse), and an example is a promise that the call is valid.
 * Build-time sources are checked by the generator; at run time a validator per operation would
 * triple a large spec's conversion, so there the hint checks an example before showing it
 * (validate-arguments.ts), once the tool's validator exists anyway.
 */
export async function withCheckedExample(operation: OpenApiOperation): Promise<OpenApiOperation> {
  const { example, ...rest } = operation;
  if (example === undefined) return operation;
  const validator = validatorFor(operation.inputSchema);
  if (validator.unsupported !== undefined || !validator.schema.safeParse(example).success) return rest;
  return (await patternIssues(operation.inputSchema, example)).length === 0 ? operation : rest;
}
