/**
 * Puts the current request's id in front of every console line written on its behalf, whoever
 * writes it (our code, a tool, a plugin): `[request_id=<id>] message`. The Worker entry installs
 * it on the isolate's console once; lines written outside a request, and JSON lines (which carry
 * `request_id` as a field), are left as they are.
 */
import { currentRequestId } from "./request-context.ts";

const METHODS = ["log", "info", "warn", "error", "debug"] as const;

type ConsoleLike = Pick<Console, (typeof METHODS)[number]>;

const tagged = new WeakSet<ConsoleLike>();

/**
 * Wraps `target`'s methods once; installing again does nothing.
 *
 * @example tagConsoleWithRequestId(console);
 */
export function tagConsoleWithRequestId(target: ConsoleLike): void {
  if (tagged.has(target)) return;
  tagged.add(target);
  for (const method of METHODS) {
    const original = target[method].bind(target);
    target[method] = function withRequestTag(...args: unknown[]) {
      // A structured JSON line (request-log.ts, call-spans.ts) names its request itself, and a
      // prefix would stop it parsing as JSON. Checked before the request id is looked up: every
      // request and every call writes one, and they need no lookup.
      if (typeof args[0] === "string" && args[0].startsWith("{")) return original(...args);
      const id = currentRequestId();
      if (id === undefined) return original(...args);
      // A string first argument keeps its place (and any format specifiers in it) behind the tag.
      if (typeof args[0] === "string") return original(`[request_id=${id}] ${args[0]}`, ...args.slice(1));
      return original(`[request_id=${id}]`, ...args);
    };
  }
}
