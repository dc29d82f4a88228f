/**
 * What toolgate does with a request a 2025-era server sends mid-call: a ping is answered by
 * toolgate itself, the client features (elicitation, sampling, roots) go to the client that made
 * the call, and any other method is refused, never passed on as a question.
 */
import { describe, expect, it } from "vitest";
import { answerServerRequest } from "../../../src/mcp/client/answer-server.ts";
import type { InputRequest, JsonRpcResponse } from "../../../src/mcp/client/json-rpc.ts";

/** Runs one server request through answerServerRequest; returns what the server was sent and what the client was asked. */
async function serverAsks(method: string): Promise<{ sent: JsonRpcResponse[]; asked: InputRequest[] }> {
  const sent: JsonRpcResponse[] = [];
  const asked: InputRequest[] = [];
  const answer = async (requests: Readonly<Record<string, InputRequest>>) => {
    asked.push(...Object.values(requests));
    return Object.fromEntries(Object.keys(requests).map((key) => [key, { action: "accept" }]));
  };
  await answerServerRequest({ jsonrpc: "2.0", id: 7, method, params: {} }, answer, async (response) => {
    sent.push(response);
  });
  return { sent, asked };
}

describe("a server's request during a call", () => {
  it("ping is answered by toolgate with an empty result; the client is not asked", async () => {
    expect(await serverAsks("ping")).toEqual({ sent: [{ jsonrpc: "2.0", id: 7, result: {} }], asked: [] });
  });

  it("elicitation/create goes to the client, and its answer back to the server", async () => {
    expect(await serverAsks("elicitation/create")).toEqual({
      sent: [{ jsonrpc: "2.0", id: 7, result: { action: "accept" } }],
      asked: [{ method: "elicitation/create", params: {} }],
    });
  });

  it("a method that is no client feature is refused with method-not-found; the client is not asked", async () => {
    const { sent, asked } = await serverAsks("tools/list");
    expect(asked).toEqual([]);
    expect(sent).toEqual([{ jsonrpc: "2.0", id: 7, error: { code: -32601, message: "toolgate does not answer 'tools/list'" } }]);
  });
});
