/**
 * The keys page in an isolate that has not synced remote MCP servers yet (`federation.reset()`
 * stands in for a fresh one): a console page opens the catalog as every /v1 request does, so a
 * remote server's toolset is known to the key form as it is to POST /v1/keys.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { federation } from "../../src/mcp/federation/federation.ts";
import { addServer, fedEnv } from "../mcp/federation/helpers.ts";
import { createKey } from "../support/create-key.ts";
import { testParts } from "../support/dispatch.ts";
import { FAKE_MCP_HOST } from "../support/test-env.ts";
import { adminSignIn, consoleCsrf, ORIGIN, PageClient } from "./admin-client.ts";

const SERVER = "keysfresh";
// The app of this module realm, whose registry federation.reset() empties.
const app = createApp(testParts);

beforeAll(async () => {
  await addServer({ name: SERVER, url: `http://${FAKE_MCP_HOST}/pinned` });
});
afterEach(() => federation.reset());

describe("the keys page in an isolate that has not synced", () => {
  it("creates a key for a remote server's toolset", async () => {
    const admin = await createKey({ name: `fresh-admin-${crypto.randomUUID()}`, role: "admin" });
    const client = new PageClient(ORIGIN, (request) => Promise.resolve(app.request(request, undefined, fedEnv)));
    expect((await adminSignIn(client, admin.key)).status).toBe(303);
    const csrf = await consoleCsrf(client);
    federation.reset();
    const name = `remote-agent-${crypto.randomUUID()}`;
    const response = await client.post("/admin/keys", {
      csrf,
      name,
      role: "agent",
      toolsets: `mcp-${SERVER}`,
      policy_mode: "deny",
      patterns: "",
      rate_limit: "",
    });
    expect([response.status, /role="alert">([^<]*)</.exec(client.lastPage)?.[1] ?? ""]).toEqual([201, ""]);
    expect(client.lastPage).toContain(`mcp-${SERVER}`);
  });
});
