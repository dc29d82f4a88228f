/**
 * Validation with the tool's zod schema, reported so the model can fix every bad field in one
 * turn: the path, what was expected, what arrived, and an example of a valid call.
 */
import type { z } from "zod";
import type { FieldIssue, ToolFailure } from "../errors/tool-failure.ts";
import type { ToolEntry } from "../registry/types.ts";
import { exampleHint } from "./example-arguments.ts";

export type Validated = { ok: true; args: Record<string, unknown> } | { ok: false; failure: ToolFailure };

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing (the field is missing)";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "object") return "an object";
  return `the ${typeof value} ${String(value)}`;
}

function toFieldIssue(issue: z.core.$ZodIssue): FieldIssue {
  const path = issue.path.map(String).join(".");
  const received = "input" in issue ? describeValue(issue.input) : undefined;
  if (issue.code === "invalid_type") {
    return {
      path,
      message: `expected ${issue.expected}, received ${received ?? "another type"}`,
      expected: issue.expected,
      ...(received === undefined ? {} : { received }),
    };
  }
  if (issue.code === "invalid_value") {
    const expected = `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    return { path, message: `expected ${expected}, received ${received ?? "another value"}`, expected, ...(received === undefined ? {} : { received }) };
  }
  return { path, message: received === undefined ? issue.message : `${issue.message}, received ${received}`, ...(received === undefined ? {} : { received }) };
}

/** Validates (already coerced) arguments against the entry's schema. */
export async function validateArguments(entry: ToolEntry, args: Record<string, unknown>): Promise<Validated> {
  const result = await entry.schema.safeParseAsync(args, { reportInput: true });
  if (result.success) return { ok: true, args: result.data as Record<string, unknown> };
  // An OpenAPI source's example comes from its spec unchecked (checked-example.ts): shown only when valid.
  const example = entry.example !== undefined && (await entry.schema.safeParseAsync(entry.example)).success ? entry.example : exampleHint(entry.parameters);
  return {
    ok: false,
    failure: {
      kind: "invalid_arguments",
      name: entry.name,
      issues: result.error.issues.map(toFieldIssue),
      // The tool's own example when it has one: real values say more than placeholders.
      example: JSON.stringify(example),
    },
  };
}
