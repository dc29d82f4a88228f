/**
 * The envelope of a handler that overran its deadline, and the seconds every timing message is
 * written in: kept apart from envelope.ts, which maps every other kind.
 */
import type { ErrorEnvelope } from "./error-envelope.ts";
import type { ToolFailure } from "./tool-failure.ts";

/** 150 → "0.15s", 30000 → "30s": precise enough to compare with the configured value. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))}s`;
}

/**
 * A handler that finished after its deadline: its result is withheld (a late `ok` would tell the
 * model the call kept its deadline), and what it may already have changed is named, since
 * synchronous work cannot be stopped half way and a blind retry could apply a write twice.
 */
export function overranEnvelope(failure: Extract<ToolFailure, { kind: "timeout" }>, writes: readonly string[]): ErrorEnvelope {
  const limit = `${failure.limit === "batch" ? "batch deadline" : "timeout"}: ${seconds(failure.timeoutMs)}`;
  const changed =
    writes.length === 0
      ? " It declares no writes, so nothing was changed."
      : ` Its writes may have happened anyway: ${writes.join(", ")}. Check them before calling it again.`;
  return {
    error: `Tool '${failure.name}' finished after its deadline, in ${seconds(failure.elapsedMs)} (configured ${limit}); its result was withheld.${changed}`,
    error_code: "TOOL_TIMEOUT",
    stage: "execute",
    suggestion: "Narrow the request (a smaller input, fewer matches, a smaller range) so it finishes within its deadline.",
    retryable: writes.length === 0,
  };
}
