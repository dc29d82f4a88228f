import { env } from "cloudflare:workers";
import { describe, expect, expectTypeOf, it, vi } from "vitest";
import { AttemptContext, type BaseContext } from "../../src/execution/attempt-context.ts";

// Required: a field ToolContext gains (optional ones too) must be added here, and then the
// copy test below fails until the constructor copies it.
const base: Required<BaseContext> = {
  callId: "call_ac",
  sessionId: "sess_ac",
  keyId: "key_ac",
  toolName: "echo",
  env,
  dependencyResults: new Map([["dep", 1]]),
  waitUntil: () => undefined,
  client: { progress: () => undefined, log: () => undefined },
  mayUse: () => true,
  format: "anthropic",
  callTool: async () => ({ callId: "call_ac.1", status: "ok", result: null }),
  run: { id: "run_ac", auditId: "run_ac", depth: 0, toolset: undefined, model: "m", origin: undefined },
  origin: "https://toolgate.test",
  callerToken: "grant:abc:secret",
  reportCredential: () => undefined,
};

describe("AttemptContext", () => {
  it("declares every field of the call's base context", () => {
    // A field the class does not declare would silently vanish from every handler's context.
    expectTypeOf<Exclude<keyof BaseContext, keyof AttemptContext>>().toEqualTypeOf<never>();
  });

  it("copies every field of the call's base context, and holds the attempt's number and deadline", () => {
    const context = new AttemptContext(base, 2, 1234, { signal: () => new AbortController().signal, fetch: () => fetch });
    for (const key of Object.keys(base) as (keyof BaseContext)[]) expect(context[key], key).toBe(base[key]);
    expect(context).toMatchObject({ attempt: 2, deadlineAt: 1234 });
  });

  it("makes its signal and fetch only when a handler reads them, and once", () => {
    const signal = vi.fn(() => new AbortController().signal);
    const makeFetch = vi.fn(() => fetch);
    const context = new AttemptContext(base, 1, 0, { signal, fetch: makeFetch });
    expect(signal).not.toHaveBeenCalled();
    expect(makeFetch).not.toHaveBeenCalled();
    expect(context.signal).toBe(context.signal);
    expect(context.fetch).toBe(context.fetch);
    expect(signal).toHaveBeenCalledTimes(1);
    expect(makeFetch).toHaveBeenCalledTimes(1);
  });
});
