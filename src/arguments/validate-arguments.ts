/**
 * Validation with the tool's zod schema, reported so the model can fix every bad field in one
 * turn: the path, what was expected, what arrived, and an example of a valid call.
 */
import type { z } from "zod";
import type { FieldIssue, ToolFailure } from "../errors/tool-failure.ts";
import type { JsonSchema, ToolEntry } from "../registry/types.ts";

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

/** A placeholder value for a JSON Schema, preferring the schema's own examples and defaults. */
function exampleValue(schema: unknown, depth = 0): unknown {
  if (typeof schema !== "object" || schema === null || depth > 4) return "…";
  const s = schema as JsonSchema;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const variants = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(variants))
    return exampleValue(
      variants.find((v) => (v as JsonSchema).type !== "null"),
      depth + 1,
    );
  switch (s.type) {
    case "string":
      return "text";
    case "integer":
      return clamp(1, s);
    case "number":
      return clamp(1.5, s);
    case "boolean":
      return true;
    case "array":
      return [exampleValue(s.items, depth + 1)];
    case "object":
      return exampleObject(s, depth + 1);
    default:
      return "…";
  }
}

/** A friendly number inside the schema's bounds (zod writes the safe-integer range for .int()). */
function clamp(preferred: number, schema: JsonSchema): number {
  const min = typeof schema.minimum === "number" ? schema.minimum : Number.NEGATIVE_INFINITY;
  const max = typeof schema.maximum === "number" ? schema.maximum : Number.POSITIVE_INFINITY;
  return Math.min(Math.max(preferred, min), max);
}

function exampleObject(schema: JsonSchema, depth = 0): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const example: Record<string, unknown> = {};
  for (const key of required) example[key] = exampleValue(properties[key], depth);
  return example;
}

/** Validates (already coerced) arguments against the entry's schema. */
export async function validateArguments(entry: ToolEntry, args: Record<string, unknown>): Promise<Validated> {
  const result = await entry.schema.safeParseAsync(args, { reportInput: true });
  if (result.success) return { ok: true, args: result.data as Record<string, unknown> };
  return {
    ok: false,
    failure: {
      kind: "invalid_arguments",
      name: entry.name,
      issues: result.error.issues.map(toFieldIssue),
      // The tool's own example when it has one: real values say more than placeholders.
      example: JSON.stringify(entry.example ?? exampleObject(entry.parameters)),
    },
  };
}
