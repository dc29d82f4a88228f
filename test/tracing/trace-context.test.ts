import { describe, expect, it } from "vitest";
import { traceContextOf } from "../../src/tracing/trace-context.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";

describe("traceContextOf", () => {
  it("joins the caller's trace for a well-formed version 00 header", () => {
    expect(traceContextOf(`00-${TRACE}-${PARENT}-01`)).toEqual({ traceId: TRACE, parentSpanId: PARENT });
  });

  it("starts a new trace for a version 00 header with fields appended, all-zero ids, version ff, or no header", () => {
    for (const header of [
      `00-${TRACE}-${PARENT}-01-extra`,
      `00-${"0".repeat(32)}-${PARENT}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `ff-${TRACE}-${PARENT}-01`,
      undefined,
    ]) {
      const trace = traceContextOf(header);
      expect(trace.parentSpanId, String(header)).toBeUndefined();
      expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(trace.traceId).not.toBe(TRACE);
    }
  });

  it("lets a later version append fields", () => {
    expect(traceContextOf(`01-${TRACE}-${PARENT}-01-more`)).toEqual({ traceId: TRACE, parentSpanId: PARENT });
  });
});
