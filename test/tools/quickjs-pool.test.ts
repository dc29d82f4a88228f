/**
 * The QuickJS pool's memories: made at their full size and written once before a script runs,
 * and handed from a dropped instance to the next new one, cleared. A script that filled a fresh
 * memory paid its pages' kernel faults inside its slice (90-120 ms of system time at times on
 * the dev machine), and every dropped memory cost their unmapping again.
 */
import { describe, expect, it } from "vitest";
import { createQuickJSPool, WASM_MEMORY_BYTES } from "../../tools/lib/quickjs.ts";
import { runScript } from "../../tools/lib/run-script.ts";
import { noTools, scriptLimits } from "../support/script-limits.ts";

const acquire = async (pool: ReturnType<typeof createQuickJSPool>) => {
  const lease = await pool.acquire(Date.now() + 10_000, new AbortController().signal);
  if (lease === undefined) throw new Error("the pool lent no instance");
  return lease;
};

describe("the QuickJS pool's memories", () => {
  it("makes an instance's memory at its full size, so a script that fills it never grows it", async () => {
    const lease = await acquire(createQuickJSPool({ maxInstances: 1 }));
    expect(lease.instance.memory.buffer.byteLength).toBe(WASM_MEMORY_BYTES);
    const { run, sound } = await runScript(
      lease.instance,
      "const a = Array(1 << 20).fill(0); return [...a].length;",
      scriptLimits(50),
      noTools,
      new AbortController().signal,
    );
    expect(run.ok).toBe(false);
    expect(lease.instance.memory.buffer.byteLength).toBe(WASM_MEMORY_BYTES);
    lease.release(sound);
  });

  it("gives a trapped instance's memory, cleared, to the next new instance, which runs scripts as a fresh one", async () => {
    const pool = createQuickJSPool({ maxInstances: 1 });
    const first = await acquire(pool);
    // A native scan longer than the slice: the fuel runs out inside it and the wasm traps.
    const trapped = await runScript(
      first.instance,
      "const s = 'x'.repeat(1 << 22); for (;;) s.indexOf('y');",
      scriptLimits(50),
      noTools,
      new AbortController().signal,
    );
    expect(trapped.sound).toBe(false);
    const memory = first.instance.memory;
    // A mark where a fresh instance's heap does not reach, to see the memory cleared.
    new Uint8Array(memory.buffer)[WASM_MEMORY_BYTES - 1] = 0xab;
    first.release(trapped.sound);

    const second = await acquire(pool);
    expect(second.instance).not.toBe(first.instance);
    expect(second.instance.memory).toBe(memory);
    expect(new Uint8Array(memory.buffer)[WASM_MEMORY_BYTES - 1]).toBe(0);
    const { run, sound } = await runScript(
      second.instance,
      "return [1, 2, 3].map((n) => n * 2).join(',');",
      scriptLimits(50),
      noTools,
      new AbortController().signal,
    );
    expect(run).toMatchObject({ ok: true, result: "2,4,6" });
    expect(sound).toBe(true);
  });
});
