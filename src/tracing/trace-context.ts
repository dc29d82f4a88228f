/**
 * The W3C trace context of the request running now, so the spans of its calls join the caller's
 * trace: the `traceparent` a client or proxy sent (https://www.w3.org/TR/trace-context/), or a
 * fresh trace. Carried like the request id (request-context.ts), through AsyncLocalStorage.
 */
import { bytesToHex } from "../crypto/encoding.ts";
import type { TraceContext } from "./request-context.ts";

// version 00: 2 hex version, 32 hex trace id, 16 hex parent id, 2 hex flags; later versions may append fields.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(?:-.*)?$/;

/**
 * Random bytes drawn from the CSPRNG a pool at a time: every request takes a trace id and every
 * call a span id, and a getRandomValues call (a native call into the runtime, with its own
 * array) per id showed in the per-request profile. Filled on first use, not at module load,
 * where workerd allows no random numbers.
 */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolUsed = POOL_BYTES;

/** Random lowercase hex of `bytes` bytes (at most POOL_BYTES). */
export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomHex: ${bytes} bytes is more than the pool's ${POOL_BYTES}`);
  if (poolUsed + bytes > POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolUsed = 0;
  }
  const hex = bytesToHex(pool.subarray(poolUsed, poolUsed + bytes));
  poolUsed += bytes;
  return hex;
}

/**
 * The trace of a request that sent `traceparent` (or none): its trace id and span when the header
 * is well formed and not the all-zero ids the spec forbids, else a new trace.
 */
export function traceContextOf(traceparent: string | undefined): TraceContext {
  const header = traceparent?.trim();
  const match = header === undefined ? null : TRACEPARENT.exec(header);
  const [, version, traceId, parentSpanId] = match ?? [];
  // Version 00 is exactly 55 characters; only later versions may append fields.
  if (version === "00" && header?.length !== 55) return { traceId: randomHex(16) };
  if (version !== undefined && version !== "ff" && traceId !== undefined && parentSpanId !== undefined && !/^0+$/.test(traceId) && !/^0+$/.test(parentSpanId)) {
    return { traceId, parentSpanId };
  }
  return { traceId: randomHex(16) };
}
