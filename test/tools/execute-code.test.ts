/**
 * execute_code through POST /v1/tool-calls with created keys, QuickJS running in workerd: the
 * script's tool calls go through the whole pipeline (policy, approvals, audit records named
 * after the parent call), and a script that loops, allocates, throws, calls without end or
 * calls execute_code ends with a structured error while the isolate goes on serving.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callTools, type Key, only } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { dispatchCall } from "../support/dispatch.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

const run = async (key: Key, session: string, id: string, code: string, extra: Record<string, unknown> = {}) =>
  only(await callTools(key, session, [openaiCall(id, "execute_code", { code, ...extra })]));

const agent = (name: string) => createKey({ name, role: "agent" });

describe("execute_code", () => {
  it("ends a script that computes and awaits with TOOL_TIMEOUT at the call's deadline when that comes before timeout_ms", async () => {
    const startedAt = Date.now();
    const outcome = await dispatchCall(
      "execute_code",
      { code: "for (;;) { let s = 0; for (let i = 0; i < 1e4; i++) s += i; await null; }", timeout_ms: 30_000 },
      { callId: "deadline-1", sessionId: "code-deadline", env, batch: { deadlineAt: startedAt + 400, timeoutMs: 400 } },
    );
    expect(outcome.errorCode).toBe("TOOL_TIMEOUT");
    expect(Date.now() - startedAt).toBeLessThan(10_000);
  });

  it("runs a trivial script and returns its value and console output", async () => {
    const key = await agent("code-trivial");
    const result = await run(key, "code-trivial", "t1", "console.log('sum', 1 + 2, { a: [1] }); return { n: [1, 2, 3].map((x) => x * 2) };");
    expect(result.status).toBe("ok");
    expect(JSON.parse(result.message.content)).toEqual({ result: { n: [2, 4, 6] }, logs: ['sum 3 {"a":[1]}'], tool_calls: 0 });
  });

  it("gives ten concurrent scripts each their own result", async () => {
    const key = await agent("code-concurrent");
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        run(
          key,
          "code-concurrent",
          `con-${i}`,
          `const r = await tools.echo({ text: 'n${i}' }); let s = 0; for (let j = 0; j <= ${i}; j++) s += j; return r.text + ':' + s;`,
        ),
      ),
    );
    expect(results.map((r) => JSON.parse(r.message.content).result)).toEqual(Array.from({ length: 10 }, (_, i) => `n${i}:${(i * (i + 1)) / 2}`));
  });

  it("calls tools through the pipeline, each call audited under an id derived from the script's", async () => {
    const key = await agent("code-calls");
    const code = "const a = await tools.echo({ text: 'hi', times: 2 }); const b = await tools.echo({ text: a.text, uppercase: true }); return b.text;";
    const result = await run(key, "code-calls", "parent-1", code);
    expect(JSON.parse(result.message.content)).toEqual({ result: "HI HI", logs: [], tool_calls: 2 });
    const rows = await waitForAuditRows("key_id = ? AND tool = ?", [key.id, "echo"], 2);
    expect(rows.map((row) => [row.tool_call_id, row.status, row.session_id])).toEqual([
      ["parent-1.1", "ok", "code-calls"],
      ["parent-1.2", "ok", "code-calls"],
    ]);
    const [parent] = await waitForAuditRows("key_id = ? AND tool = ?", [key.id, "execute_code"], 1);
    expect(parent).toMatchObject({ tool_call_id: "parent-1", status: "ok" });
  });

  it("applies the key's policy to the script's calls: a denied tool throws a ToolError the script can catch", async () => {
    const key = await createKey({ name: "code-policy", role: "agent", policy: { mode: "whitelist", patterns: ["execute_code", "echo"] } });
    const code = "try { await tools.current_time({}); return 'ran'; } catch (e) { return { name: e.name, code: e.code, tool: e.tool, callId: e.callId }; }";
    const result = await run(key, "code-policy", "deny-1", code);
    expect(JSON.parse(result.message.content).result).toEqual({ name: "ToolError", code: "PERMISSION_DENIED", tool: "current_time", callId: "deny-1.1" });
    const [row] = await waitForAuditRows("key_id = ? AND tool_call_id = ?", [key.id, "deny-1.1"], 1);
    expect(row).toMatchObject({ tool: "current_time", status: "blocked", policy_decision: "deny" });
  });

  it("hands a tool that needs approval back to the script as APPROVAL_REQUIRED with the pending approval", async () => {
    const key = await agent("code-approval");
    const code =
      "try { await tools.delete_result({ handle: '" +
      crypto.randomUUID() +
      "' }); return 'deleted'; } catch (e) { return { code: e.code, status: e.status, approval: e.approval }; }";
    const result = await run(key, "code-approval", "appr-1", code);
    const value = JSON.parse(result.message.content).result;
    expect(value).toMatchObject({
      code: "APPROVAL_REQUIRED",
      status: "pending_approval",
      approval: { id: expect.any(String), url: expect.stringContaining("/approvals") },
    });
    const [row] = await waitForAuditRows("key_id = ? AND tool_call_id = ?", [key.id, "appr-1.1"], 1);
    expect(row).toMatchObject({ tool: "delete_result", status: "pending_approval", approval_id: value.approval.id });
  });

  it("ends an uncaught approval-required call with EXECUTION_FAILED naming the code", async () => {
    const key = await agent("code-approval-uncaught");
    const result = await run(key, "code-approval-uncaught", "appr-2", `await tools.delete_result({ handle: '${crypto.randomUUID()}' });`);
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(JSON.parse(result.message.content).error).toMatch(/ToolError: .*approval/i);
  });

  it("stops a script that loops forever without awaiting after one slice, and the next script runs", async () => {
    const key = await agent("code-loop");
    const started = Date.now();
    const result = await run(key, "code-loop", "loop-1", "console.log('spinning'); for (;;) {}", { timeout_ms: 300 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    const envelope = JSON.parse(result.message.content);
    expect(envelope.error).toMatch(/ended with timeout: the script computed for more than 100 ms of CPU without awaiting .*`await null`/);
    expect(envelope.error).toContain('["spinning"]');
    expect(JSON.parse((await run(key, "code-loop", "loop-2", "return 42;")).message.content).result).toBe(42);
  });

  it("stops a script that allocates 1 GB at the memory limit, and the next script runs", async () => {
    const key = await agent("code-memory");
    const code = "const chunks = []; for (let i = 0; i < 1024; i++) chunks.push(new Uint8Array(1024 * 1024)); return chunks.length;";
    const result = await run(key, "code-memory", "mem-1", code);
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(JSON.parse(result.message.content).error).toMatch(/ended with memory: .*out of memory/);
    const strings = await run(
      key,
      "code-memory",
      "mem-2",
      // Built from 1 KiB pieces: a 1 MiB repeat of one character costs ~10 ms of CPU (one
      // native step per character), so 24 of them would end at the CPU slice before the memory limit.
      "const kb = 'y'.repeat(1024); const kept = []; for (let i = 0; i < 1024; i++) kept.push(kb.repeat(1024) + i); return kept.length;",
    );
    expect(JSON.parse(strings.message.content).error).toMatch(/ended with memory: .*out of memory/);
    expect(JSON.parse((await run(key, "code-memory", "mem-3", "return 'ok';")).message.content).result).toBe("ok");
  });

  it("ends a script that throws with the error, its line and the console output before it", async () => {
    const key = await agent("code-throw");
    const result = await run(key, "code-throw", "throw-1", "console.log('before');\nthrow new RangeError('boom');");
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    const { error } = JSON.parse(result.message.content);
    expect(error).toContain("ended with exception: RangeError: boom");
    expect(error).toContain("script.js:2");
    expect(error).toContain('["before"]');
  });

  it("answers a syntax error and a deep recursion as such", async () => {
    const key = await agent("code-syntax");
    const syntax = await run(key, "code-syntax", "syn-1", "return (;");
    expect(JSON.parse(syntax.message.content).error).toContain("ended with syntax: SyntaxError");
    const deep = await run(key, "code-syntax", "syn-2", "const f = (n) => f(n + 1) + 1; return f(0);");
    expect(JSON.parse(deep.message.content).error).toMatch(/ended with stack: .*stack overflow/);
  });

  it("stops a script that tries 1,000 tool calls after 50, each of the 50 audited", async () => {
    const key = await agent("code-many");
    const code = "for (let i = 0; i < 1000; i++) { try { await tools.echo({ text: String(i) }); } catch (e) {} } return 'done';";
    const result = await run(key, "code-many", "many-1", code, { timeout_ms: 30_000 });
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(JSON.parse(result.message.content).error).toMatch(/ended with tool_call_limit: the script made more than 50 tool calls; .*\(after 50 tool calls\)/);
    const rows = await waitForAuditRows("key_id = ? AND tool = ?", [key.id, "echo"], 50);
    expect(rows).toHaveLength(50);
  });

  it("stops a script that starts 1,000 tool calls at once at the limit too", async () => {
    const key = await agent("code-many-parallel");
    const code = "await Promise.all(Array.from({ length: 1000 }, (_, i) => tools.echo({ text: String(i) }))); return 'done';";
    const result = await run(key, "code-many-parallel", "par-1", code);
    expect(JSON.parse(result.message.content).error).toMatch(/ended with tool_call_limit/);
  });

  it("refuses execute_code from inside a script", async () => {
    const key = await agent("code-recursion");
    const code = "try { await tools.execute_code({ code: 'return 1' }); } catch (e) { return { code: e.code, message: e.message }; }";
    const result = await run(key, "code-recursion", "rec-1", code);
    expect(JSON.parse(result.message.content).result).toEqual({
      code: "PERMISSION_DENIED",
      message: "execute_code cannot call execute_code: a script runs one level deep",
    });
  });

  it("answers a script that overwrites JSON and Promise's then with its own return value", async () => {
    const key = await agent("code-globals");
    const code =
      "JSON.stringify = () => 'forged'; JSON.parse = () => ({}); Promise.prototype.then = function () {}; const r = await tools.echo({ text: 'still' }); return r.text;";
    const result = await run(key, "code-globals", "glob-1", code);
    expect(JSON.parse(result.message.content)).toMatchObject({ result: "still", tool_calls: 1 });
  });

  it("ends a script that awaits a promise nothing settles instead of hanging", async () => {
    const key = await agent("code-stalled");
    const result = await run(key, "code-stalled", "stall-1", "await new Promise(() => {}); return 1;");
    expect(JSON.parse(result.message.content).error).toMatch(/ended with stalled/);
  });

  it("refuses code that is not a string, naming the field", async () => {
    const key = await agent("code-invalid");
    const result = only(await callTools(key, "code-invalid", [openaiCall("inv-1", "execute_code", { code: 42 })]));
    expect(result).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(result.message.content).toContain("code");
  });
});

describe("execute_code under the key's limits", () => {
  it("charges the script's calls against the key's rate limit: past it, they throw RATE_LIMITED", async () => {
    const key = await createKey({ name: "code-rate", role: "agent", rate_limit_per_minute: 3 });
    const code =
      "const codes = []; for (let i = 0; i < 4; i++) { try { await tools.echo({ text: 'x' }); codes.push('ok'); } catch (e) { codes.push(e.code); } } return codes;";
    const result = await run(key, "code-rate", "rate-1", code);
    const codes = JSON.parse(result.message.content).result as string[];
    // The script's own call took one of the three.
    expect(codes).toEqual(["ok", "ok", "RATE_LIMITED", "RATE_LIMITED"]);
  });

  it("does not count failing scripts against execute_code's circuit breaker", async () => {
    const key = await agent("code-breaker");
    for (let i = 0; i < 7; i++) {
      const failed = await run(key, "code-breaker", `brk-${i}`, "throw new Error('mine');");
      expect(failed).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    }
    expect(JSON.parse((await run(key, "code-breaker", "brk-ok", "return 'still open';")).message.content).result).toBe("still open");
  });
});
