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

/** How zod's sync parse says it met a Promise (zod/v4/core/core.js, $ZodAsyncError). */
const ASYNC_PARSE_MESSAGE = "Encountered Promise during synchronous parse";

/** Schemas found to hold an async refinement or transform: parsed asynchronously from then on. */
const asyncSchemas = new WeakSet<z.ZodType>();

/**
 * The schema's verdict on `value`. Synchronously first: every call takes this path, and zod's
 * async parse costs about twice the sync one. A schema with an async check makes the sync parse
 * throw zod's $ZodAsyncError (known by its message: the Worker's zod leaves out `z.core`, where
 * the class lives); that schema is then parsed asynchronously, this time and after. So on the
 * first call per isolate, an async check runs twice (its first promise dropped): no tool has one,
 * and one that does I/O should expect that.
 */
async function safeParse(schema: z.ZodType, value: unknown, reportInput: boolean) {
  if (!asyncSchemas.has(schema)) {
    try {
      return schema.safeParse(value, { reportInput });
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith(ASYNC_PARSE_MESSAGE))) throw error;
      asyncSchemas.add(schema);
    }
  }
  return schema.safeParseAsync(value, { reportInput });
}

/** Validates (already coerced) arguments against the entry's schema. */
export async function validateArguments(entry: ToolEntry, args: Record<string, unknown>): Promise<Validated> {
  const result = await safeParse(entry.schema, args, true);
  if (result.success) return { ok: true, args: result.data as Record<string, unknown> };
  // An OpenAPI source's example comes from its spec unchecked (checked-example.ts): shown only when valid.
  const example = entry.example !== undefined && (await safeParse(entry.schema, entry.example, false)).success ? entry.example : exampleHint(entry.parameters);
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
