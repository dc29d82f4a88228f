/**
 * execute_code against scripts that try to hold the isolate: native work that never polls
 * QuickJS's interrupt handler (a 16 MB indexOf, spreading big arrays), an empty loop,
 * catastrophic regex backtracking, allocation in a loop. Each ends with its budget, in bounded
 * time (the test finishing is the proof), and the isolate goes on serving; a script that awaits
 * between chunks of work runs well past one slice.
 */
import { describe, expect, it } from "vitest";
import { callTools, type Key, only } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { openaiCall } from "../support/tool-calls.ts";

const run = async (key: Key, session: string, id: string, code: string, extra: Record<string, unknown> = {}) =>
  only(await callTools(key, session, [openaiCall(id, "execute_code", { code, ...extra })]));

const errorOf = (result: { message: { content: string } }) => String(JSON.parse(result.message.content).error);

describe("execute_code against scripts that hold the isolate", () => {
  it("stops a 16 MB indexOf in an endless loop at its 100 ms CPU budget, and the next script runs", async () => {
    const key = await createKey({ name: "hostile-indexof", role: "agent" });
    const code = "const s = 'x'.repeat(1 << 24); let n = 0; for (;;) n += s.indexOf('y');";
    const result = await run(key, "hostile-indexof", "idx-1", code, { timeout_ms: 100 });
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(errorOf(result)).toMatch(/ended with timeout: the script ran past its 100 ms budget of CPU/);
    // The fuel ran out inside native code: that instance trapped and was dropped.
    expect(JSON.parse((await run(key, "hostile-indexof", "idx-2", "return 'x'.repeat(5).indexOf('x');")).message.content).result).toBe(0);
  });

  it("stops spreading a quarter-million-element array in an endless loop after one slice", async () => {
    const key = await createKey({ name: "hostile-spread", role: "agent" });
    const result = await run(key, "hostile-spread", "spr-1", "const a = Array(1 << 18).fill(0); let t; for (;;) t = [...a];");
    expect(errorOf(result)).toMatch(/ended with timeout: the script computed for more than 100 ms of CPU without awaiting/);
  });

  // Two copies of a million 16-byte values, or a growing array of strings, fill most of an
  // instance's 24 MiB: either limit may come first.
  it.each([
    ["spreads a million-element array in an endless loop", "const a = Array(1 << 20).fill(0); let t; for (;;) t = [...a];"],
    ["copies a growing array of strings on every iteration", "let a = []; for (;;) a = [...a, 'x'.repeat(1000)];"],
  ])("ends a script that %s at a limit", async (_, code) => {
    const key = await createKey({ name: `hostile-${crypto.randomUUID()}`, role: "agent" });
    expect(errorOf(await run(key, "hostile-limit", "limit-1", code))).toMatch(/ended with (timeout|memory)/);
  });

  it("stops a regex with catastrophic backtracking", async () => {
    const key = await createKey({ name: "hostile-regex", role: "agent" });
    const result = await run(key, "hostile-regex", "re-1", "return /^(a+)+$/.test('a'.repeat(40) + 'b');");
    expect(errorOf(result)).toMatch(/ended with timeout/);
  });

  it("runs a script that awaits between chunks of work for many slices' worth of CPU", async () => {
    const key = await createKey({ name: "hostile-chunks", role: "agent" });
    const code = "let s = 0; for (let k = 0; k < 40; k++) { for (let i = 0; i < 200000; i++) s += i % 7; await null; } return s;";
    const result = await run(key, "hostile-chunks", "chunk-1", code, { timeout_ms: 30_000 });
    expect(JSON.parse(result.message.content).result).toBe(23_999_760);
  });

  it("answers ten concurrent scripts, half of them spinning, each with its own outcome", async () => {
    const key = await createKey({ name: "hostile-mixed", role: "agent" });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => run(key, "hostile-mixed", `mix-${i}`, i % 2 === 0 ? "for (;;) {}" : `return ${i};`)),
    );
    for (const [i, result] of results.entries()) {
      if (i % 2 === 0) expect(errorOf(result)).toMatch(/ended with timeout/);
      else expect(JSON.parse(result.message.content).result).toBe(i);
    }
  });
});
