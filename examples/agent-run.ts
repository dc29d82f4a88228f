/**
 * An agent run on toolgate: the gateway holds the loop (model turns, tool calls through policy,
 * approvals, audit) in a Durable Object, and this program starts one and follows its events as
 * they happen, resuming by itself if the connection drops. The model is the one configured on
 * the gateway (MODEL_BASE_URL, MODEL_API_KEY, MODEL_NAME), not one this program talks to.
 *
 *   TOOLGATE_KEY=tg_... node examples/agent-run.ts
 *
 * Env: TOOLGATE_URL (default http://localhost:8787), TOOLGATE_KEY, PROMPT.
 */
import { createClient } from "toolgate/client";

const env = process.env;
const key = env.TOOLGATE_KEY;
if (key === undefined || key === "") throw new Error("Set TOOLGATE_KEY (see the comment at the top of this file).");
const toolgate = createClient({ baseUrl: env.TOOLGATE_URL ?? "http://localhost:8787", key });

const run = await toolgate.startRun({ input: env.PROMPT ?? "Use the echo tool to say hello twice, then tell me what it said." });
// Ctrl-C stops following; the run itself goes on in the gateway until it ends or is cancelled.
const stop = new AbortController();
process.once("SIGINT", () => stop.abort(new Error("stopped following")));

// The model's text is printed as it is written; stderr, so stdout keeps the final answer alone.
const onDelta = ({ content }: { content: string }) => void process.stderr.write(content);
for await (const event of toolgate.followRun(run.id, { signal: stop.signal, onDelta })) {
  if (event.type === "model.turn" && typeof event.data.content === "string" && event.data.content !== "") process.stderr.write("\n");
  if (event.type === "tool.result") console.error(`${String(event.data.tool)}: ${String(event.data.status)}`);
  if (event.type === "approval.pending") console.error(`waiting for approval of ${String(event.data.tool)}`);
  if (event.type === "run.finished") {
    if (event.data.status !== "completed") throw new Error(`the run ended ${String(event.data.status)}: ${JSON.stringify(event.data.error)}`);
    console.log(event.data.answer);
  }
}
