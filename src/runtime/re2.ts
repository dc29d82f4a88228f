/**
 * re2js, loaded on first use. It is a linear-time regular-expression engine (a port of RE2):
 * no pattern can backtrack, so `(a+)+$` over a 10 MB file costs what a plain pattern costs.
 * workerd cannot interrupt a running native RegExp, and a guard that refuses "dangerous"
 * patterns misses some (`(a|a)*$`, `.*.*.*x`), so the engine itself is the bound. Loaded
 * lazily so a Worker start that never searches does not evaluate it.
 */
import type { RE2JS } from "re2js";

export type Re2 = typeof RE2JS;

let loading: Promise<Re2> | undefined;

/** The RE2JS class. */
export function loadRe2(): Promise<Re2> {
  loading ??= import("re2js").then((module) => module.RE2JS);
  return loading;
}
