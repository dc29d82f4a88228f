/**
 * Workspace paths: relative, `/`-separated, confined to the workspace. A path is normalised
 * once (`./a//b` is `a/b`) and every refusal is INVALID_ARGUMENTS naming the field, so a model
 * learns what to send instead. `..` is refused outright rather than resolved: a path that climbs
 * and comes back is still a sign of a model reaching for the host's file system.
 */
import { ToolFailureError } from "../../../src/errors/tool-failure.ts";

/** R2 keys are at most 1,024 bytes; the workspace prefix takes the rest. */
export const MAX_PATH_BYTES = 512;
/** What common file systems allow for one name. */
export const MAX_NAME_BYTES = 255;

const encoder = new TextEncoder();

function problemWith(raw: string, allowRoot: boolean): string | undefined {
  // Control characters are never part of a real file name; NUL truncates paths in C-backed tools.
  if (raw.includes("\0")) return "it contains a NUL byte";
  if (/[\u0001-\u001f\u007f]/.test(raw)) return "it contains a control character";
  if (raw.includes("\\")) return "it contains a backslash; separate directories with '/'";
  if (raw.startsWith("/") || raw.startsWith("~") || /^[A-Za-z]:/.test(raw))
    return "it is absolute; give a path relative to the workspace root, such as 'src/main.ts'";
  const segments = raw.split("/");
  if (segments.includes("..")) return "it contains '..'; paths cannot leave the workspace, give one relative to its root";
  if (!allowRoot && segments.every((s) => s === "" || s === ".")) return "it names the workspace root, not a file";
  if (encoder.encode(raw).length > MAX_PATH_BYTES) return `it is longer than ${MAX_PATH_BYTES} bytes`;
  const long = segments.find((s) => encoder.encode(s).length > MAX_NAME_BYTES);
  if (long !== undefined) return `the name '${long.slice(0, 40)}…' is longer than ${MAX_NAME_BYTES} bytes`;
  return undefined;
}

/**
 * The normalised form of `raw` (`a/b.txt`; `""` for the root when `allowRoot`), or throws
 * INVALID_ARGUMENTS for `tool`'s `field`.
 */
export function normalizePath(raw: string, tool: string, field = "path", allowRoot = false): string {
  const problem = problemWith(raw, allowRoot);
  if (problem !== undefined) {
    throw new ToolFailureError({
      kind: "invalid_arguments",
      name: tool,
      issues: [{ path: field, message: `The path '${raw.slice(0, 80)}' is not allowed: ${problem}.`, received: JSON.stringify(raw.slice(0, 80)) }],
    });
  }
  return raw
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .join("/");
}

/**
 * The batch resource of the file a call names (`workspace:<path>`), for ordering calls before
 * their arguments are validated; an unusable path names the whole workspace, which orders the
 * call after every other workspace call (it will fail anyway).
 */
export function fileResource(args: Record<string, unknown>): readonly string[] {
  const raw = args.path;
  if (typeof raw !== "string" || problemWith(raw, false) !== undefined) return ["workspace:*"];
  return [`workspace:${normalizePath(raw, "")}`];
}

/** Every file of the workspace, for tools that read many (search, listing). */
export const WHOLE_WORKSPACE: readonly string[] = ["workspace:*"];
