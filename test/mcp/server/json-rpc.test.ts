import { describe, expect, it } from "vitest";
import { classifyMessage, parseBody, RPC_INVALID_REQUEST, RPC_PARSE_ERROR } from "../../../src/mcp/server/json-rpc.ts";
import { allowsBatches, negotiateProtocolVersion } from "../../../src/mcp/server/protocol-versions.ts";

describe("JSON-RPC message parsing", () => {
  it("answers text that is not JSON with a parse error naming the problem", () => {
    const parsed = parseBody("{not json");
    expect(parsed).toMatchObject({ ok: false, error: { code: RPC_PARSE_ERROR } });
  });

  it("refuses an empty batch as an invalid request", () => {
    expect(parseBody("[]")).toMatchObject({ ok: false, error: { code: RPC_INVALID_REQUEST } });
  });

  it("tells requests, notifications and responses apart", () => {
    expect(classifyMessage({ jsonrpc: "2.0", id: 1, method: "ping" })).toEqual({ kind: "request", id: 1, method: "ping", params: {} });
    expect(classifyMessage({ jsonrpc: "2.0", method: "notifications/initialized" })).toMatchObject({ kind: "notification" });
    expect(classifyMessage({ jsonrpc: "2.0", id: "s-1", result: {} })).toMatchObject({ kind: "response", id: "s-1" });
  });

  it.each([
    [{ id: 1, method: "ping" }, 'jsonrpc must be "2.0"'],
    [{ jsonrpc: "2.0", id: null, method: "ping" }, "id must be a string or a number"],
    [{ jsonrpc: "2.0", id: 1, method: 7 }, "method must be a string"],
    [{ jsonrpc: "2.0", id: 1, method: "ping", params: [1] }, "params must be an object"],
    ["ping", "must be an object"],
  ])("classifies %j as invalid because %s", (message, reason) => {
    const classified = classifyMessage(message);
    expect(classified.kind).toBe("invalid");
    expect(classified.kind === "invalid" ? classified.reason : "").toContain(reason);
  });

  it("keeps the id of an invalid request so its error can name it", () => {
    expect(classifyMessage({ jsonrpc: "1.0", id: 7, method: "ping" })).toMatchObject({ kind: "invalid", id: 7 });
  });
});

describe("protocol revisions", () => {
  it("answers a supported version with itself and anything else with the latest", () => {
    expect(negotiateProtocolVersion("2025-03-26")).toBe("2025-03-26");
    expect(negotiateProtocolVersion("2099-01-01")).toBe("2025-11-25");
    expect(negotiateProtocolVersion(undefined)).toBe("2025-11-25");
  });

  it("allows batches up to 2025-03-26 only", () => {
    expect(allowsBatches("2025-03-26")).toBe(true);
    expect(allowsBatches("2024-11-05")).toBe(true);
    expect(allowsBatches("2025-06-18")).toBe(false);
  });
});
