/**
 * Issue 29's figure: the Worker CPU a forwarded upstream question adds to a call (target at most
 * 1 ms). A modern-era upstream (MCP 2026-07-28, hand-written, served by this Node process on
 * 127.0.0.1 so its own work is not in workerd's CPU) offers `plain`, which answers at once, and
 * `asks`, which answers `input_required` with one form-mode elicitation until the retry carries
 * its answer. A modern client calls both through toolgate's /mcp with the agent key:
 *
 * - `plain`: one leg, one upstream round (the twin);
 * - `asks`, leg 1: the upstream's question comes back as toolgate's `input_required` (state signed);
 * - `asks`, leg 2: the client's retry with the answer and the state (replayed, which the state
 *   allows): verified, and the upstream answered where it stopped, with its own state (one round).
 *
 * The question adds leg 1 + leg 2 - plain in all (reported): a second pass through the pipeline,
 * which the revision makes the client send (its retry is a request of its own, as for toolgate's
 * own tools' questions), plus the forwarding work itself, leg 1 + leg 2 - 2 x plain (checked):
 * the state's signing and checks, the questions' hashing, the carried rounds. Measured
 * as workerd's process CPU per request, one request at a time.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cpuPerRequest } from "../cpu-per-request.ts";
import type { RequestSpec } from "../load.ts";
import type { Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

const MAX_ADDED_US = 1000;
const MODERN = "2026-07-28";
const SERVER = "benchforward";
const QUESTION = {
  method: "elicitation/create",
  params: { message: "Go ahead?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
};
const ANSWER = { action: "accept", content: { ok: true } };

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The upstream: server/discover, tools/list, tools/call of `plain` and `asks`, JSON answers. */
async function serveUpstream(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    void bodyOf(request).then((text) => {
      const message = JSON.parse(text) as {
        id: number;
        method: string;
        params?: { name?: string; inputResponses?: Record<string, unknown>; requestState?: string };
      };
      const result = (body: Record<string, unknown>) => ({ resultType: "complete", ...body });
      let answer: Record<string, unknown>;
      if (message.method === "server/discover")
        answer = result({ supportedVersions: [MODERN], capabilities: { tools: {} }, serverInfo: { name: "bench-upstream", version: "1" } });
      else if (message.method === "tools/list") {
        const tool = (name: string) => ({ name, inputSchema: { type: "object", properties: {} } });
        answer = result({ tools: [tool("plain"), tool("asks")] });
      } else if (message.params?.name === "asks" && (message.params.inputResponses?.confirm === undefined || message.params.requestState !== "bench-state")) {
        answer = { resultType: "input_required", inputRequests: { confirm: QUESTION }, requestState: "bench-state" };
      } else answer = result({ content: [{ type: "text", text: "done" }] });
      const out = JSON.stringify({ jsonrpc: "2.0", id: message.id, result: answer });
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) });
      response.end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A modern tools/call of `tool` through /mcp, as the v2 client sends it, with the agent key. */
function modernCall(agentKey: string, tool: string, extra: Record<string, unknown> = {}): RequestSpec {
  const meta = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
  return {
    method: "POST",
    path: "/mcp",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: {}, ...extra, _meta: meta } }),
    headers: {
      authorization: `Bearer ${agentKey}`,
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": tool,
    },
  };
}

/** The JSON-RPC result of an answer (JSON, or the last SSE event's data). */
function resultOf(body: string): Record<string, unknown> {
  const json = body.startsWith("{")
    ? body
    : (body
        .match(/^data: (.*)$/gm)
        ?.pop()
        ?.slice(6) ?? "{}");
  return ((JSON.parse(json) as { result?: Record<string, unknown> }).result ?? {}) as Record<string, unknown>;
}

export const mcpForwardedQuestion: Scenario = {
  id: "mcp-forwarded-question",
  title: "A federated server's question forwarded to a modern client (input_required): workerd CPU it adds to a call",
  async run(ctx) {
    const { server, origin } = await serveUpstream();
    try {
      const added = await ctx.client.send({
        method: "POST",
        path: "/v1/mcp-servers",
        body: JSON.stringify({ name: SERVER, url: `${origin}/mcp` }),
        headers: { "content-type": "application/json" },
      });
      if (added.status !== 201) throw new Error(`bench: mcp-forwarded-question: adding the upstream answered ${added.status}: ${added.body.slice(0, 300)}`);
      const plain = modernCall(ctx.agentKey, `mcp__${SERVER}__plain`);
      const leg1 = modernCall(ctx.agentKey, `mcp__${SERVER}__asks`);
      const first = resultOf((await ctx.client.send(leg1)).body);
      if (first.resultType !== "input_required" || typeof first.requestState !== "string")
        throw new Error(`bench: mcp-forwarded-question: leg 1 did not ask: ${JSON.stringify(first).slice(0, 300)}`);
      const leg2 = modernCall(ctx.agentKey, `mcp__${SERVER}__asks`, { requestState: first.requestState, inputResponses: { q0: ANSWER } });
      const done = resultOf((await ctx.client.send(leg2)).body);
      if (done.isError === true || !JSON.stringify(done.content).includes("done"))
        throw new Error(`bench: mcp-forwarded-question: leg 2 did not finish: ${JSON.stringify(done).slice(0, 300)}`);

      const count = ctx.quick ? 50 : 300;
      const rounds = Math.max(3, ctx.settings.rounds);
      const cpu = { plain: [] as number[], leg1: [] as number[], leg2: [] as number[] };
      for (let round = 0; round < rounds; round++) {
        cpu.plain.push((await cpuPerRequest(ctx, plain, count, "mcp-forwarded-question")).cpuUs);
        cpu.leg1.push((await cpuPerRequest(ctx, leg1, count, "mcp-forwarded-question")).cpuUs);
        cpu.leg2.push((await cpuPerRequest(ctx, leg2, count, "mcp-forwarded-question")).cpuUs);
      }
      const addedUs = median(cpu.leg1) + median(cpu.leg2) - median(cpu.plain);
      const forwardingUs = addedUs - median(cpu.plain);
      const row = (label: string, values: number[], note: string) => ({
        label,
        values: { value: median(values), spread: Math.max(...values) - Math.min(...values) },
        note,
      });
      return {
        method: `${rounds} rounds of ${count} sequential modern tools/calls per step through the full app (agent key, audit), workerd process CPU per request, medians; the upstream runs in the bench's Node process`,
        columns: [
          { key: "value", header: "CPU us", digits: 0 },
          { key: "spread", header: "min-max", digits: 0 },
        ],
        rows: [
          row("plain call (one upstream round)", cpu.plain, "the twin"),
          row("asks, leg 1: input_required to the client", cpu.leg1, "pipeline, one upstream round, state signed"),
          row("asks, leg 2: the retry with the answer", cpu.leg2, "pipeline, state checked, the upstream resumed (one round)"),
          {
            label: "the question, in all (leg 1 + leg 2 - plain)",
            values: { value: addedUs, spread: Number.NaN },
            note: "includes the retry's own pass through the pipeline, a request the client sends",
          },
        ],
        checks: [
          {
            label: "a forwarded upstream question, Worker CPU of the forwarding (leg 1 + leg 2 - 2 x plain)",
            target: `<= ${MAX_ADDED_US} us`,
            actual: `${forwardingUs.toFixed(0)} us (${addedUs.toFixed(0)} us with the retry's own pass)`,
            pass: forwardingUs <= MAX_ADDED_US,
          },
        ],
      };
    } finally {
      // Left registered, its tools' availability checks would reach a closed port in every later
      // scenario ("Network connection lost"), and count as misses in availability-cache's hit rate.
      await ctx.client.send({ method: "DELETE", path: `/v1/mcp-servers/${SERVER}` });
      server.close();
    }
  },
};
