import { describe, expect, it } from "vitest";
import { type RoundBinding, type RoundMemory, readState, signState, stateChars } from "../../../src/mcp/server/request-state.ts";

const SECRET = "request-state-test-secret-0123456789abcdef";
const BINDING: RoundBinding = { keyId: "key-1", endpoint: "", tool: "echo", argumentsSha256: "a".repeat(64) };
const TTL_MS = 60_000;
const NOW = 1_800_000_000_000;

describe("request state", () => {
  it("stateChars is the length signState gives, for payloads of every length modulo 3 and any text", async () => {
    for (const text of ["", "x", "xy", "xyz", "é", "日本語", "x".repeat(1_000), '"quoted" \\ and\nnewline']) {
      const memory: RoundMemory = { kind: "questions", asked: { q0: "b".repeat(64) }, answered: { q1: { hash: "c".repeat(64), result: { text } } } };
      const state = await signState(SECRET, BINDING, memory, TTL_MS, NOW);
      expect(stateChars(BINDING, memory, TTL_MS, NOW)).toBe(state.length);
    }
  });

  it("reads back what it signed, and refuses it for another tool or once expired", async () => {
    const memory: RoundMemory = { kind: "approval", approvalId: "ap_1", sessionId: "s_1" };
    const state = await signState(SECRET, BINDING, memory, TTL_MS, NOW);
    expect(await readState(SECRET, state, BINDING, NOW + 1)).toEqual({ ok: true, memory });
    expect(await readState(SECRET, state, { ...BINDING, tool: "other" }, NOW + 1)).toEqual({ ok: false, reason: "it belongs to another tool" });
    expect(await readState(SECRET, state, BINDING, NOW + TTL_MS)).toEqual({ ok: false, reason: "it has expired" });
  });
});
