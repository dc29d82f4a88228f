/** The agent key the bench's full-app figures (and profiles) are taken with. */
import type { LoadClient } from "./load.ts";
import { KEYS_PATH } from "./requests.ts";

/**
 * Creates an agent key through the real admin route: every toolset, the default policy, and a
 * per-minute limit the bench never reaches.
 */
export async function createAgentKey(client: LoadClient, name = "bench-agent"): Promise<string> {
  const body = JSON.stringify({ name, role: "agent", toolsets: null, rate_limit_per_minute: 1_000_000 });
  const { status, body: answer } = await client.send({ method: "POST", path: KEYS_PATH, body });
  const key = status === 201 || status === 200 ? (JSON.parse(answer) as { key?: unknown }).key : undefined;
  if (typeof key !== "string") throw new Error(`bench: POST ${KEYS_PATH} answered ${status}: ${answer.slice(0, 500)}`);
  return key;
}
