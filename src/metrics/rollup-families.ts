/** The metric families of the audit rollups: calls and errors (counters) and call duration (histogram), per tool and key. */
import { AUDIT_ROLLUP_BUCKETS_MS, type RollupCounts } from "../audit/audit-rollups.ts";
import type { Family, Sample } from "./prometheus-text.ts";

export const CALLS_METRIC = "toolgate_tool_calls_total";
export const ERRORS_METRIC = "toolgate_tool_errors_total";
export const DURATION_METRIC = "toolgate_tool_call_duration_milliseconds";

/** One series' labels and counts: a tool's calls made with one key. */
export interface RollupSeries {
  tool: string;
  keyId: string;
  counts: RollupCounts;
}

/**
 * The three families, with series in the order given. Buckets are cumulative as stored, and the
 * `+Inf` bucket equals `_count`, as the format requires.
 */
export function rollupFamilies(series: readonly RollupSeries[]): Family[] {
  const calls: Sample[] = [];
  const errors: Sample[] = [];
  const duration: Sample[] = [];
  for (const { tool, keyId, counts } of series) {
    const labels = { tool, key_id: keyId };
    calls.push({ name: CALLS_METRIC, labels, value: counts.calls });
    errors.push({ name: ERRORS_METRIC, labels, value: counts.errors });
    AUDIT_ROLLUP_BUCKETS_MS.forEach((bound, i) => {
      duration.push({ name: `${DURATION_METRIC}_bucket`, labels: { ...labels, le: String(bound) }, value: counts.buckets[i] ?? 0 });
    });
    duration.push(
      { name: `${DURATION_METRIC}_bucket`, labels: { ...labels, le: "+Inf" }, value: counts.calls },
      { name: `${DURATION_METRIC}_sum`, labels, value: counts.durationMsSum },
      { name: `${DURATION_METRIC}_count`, labels, value: counts.calls },
    );
  }
  return [
    { name: CALLS_METRIC, type: "counter", help: "Tool calls recorded in the audit log (every status).", samples: calls },
    { name: ERRORS_METRIC, type: "counter", help: "Tool calls that were allowed and failed (status error or timed_out).", samples: errors },
    { name: DURATION_METRIC, type: "histogram", help: "Tool call duration in milliseconds.", samples: duration },
  ];
}
