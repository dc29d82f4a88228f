/**
 * MCP conformance fixtures that talk to the client mid-call (scenarios tools-call-with-logging
 * and tools-call-with-progress): three log messages or three progress steps, about 50 ms apart,
 * through ctx.client, which the MCP door sends on the response's SSE stream.
 */
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";
import { pause } from "../lib/conformance-media.ts";

registry.register({
  name: "test_tool_with_logging",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: sends three info log messages while it runs.",
  handler: async (_args, ctx) => {
    ctx.client.log("info", "Tool execution started", "conformance");
    await pause(50, ctx.signal);
    ctx.client.log("info", "Tool processing data", "conformance");
    await pause(50, ctx.signal);
    ctx.client.log("info", "Tool execution completed", "conformance");
    return "Logging test completed: three messages sent.";
  },
});

registry.register({
  name: "test_tool_with_progress",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: reports progress 0, 50 and 100 of 100 while it runs.",
  handler: async (_args, ctx) => {
    ctx.client.progress(0, 100);
    await pause(50, ctx.signal);
    ctx.client.progress(50, 100);
    await pause(50, ctx.signal);
    ctx.client.progress(100, 100);
    return "Progress test completed.";
  },
});
