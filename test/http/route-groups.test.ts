/**
 * The lazy route groups (src/http/route-groups.ts, lazy-route-groups.ts): each group's routes lie
 * under the prefixes that load it, and a group loaded at first use serves a request as the main
 * app would: with the key the /v1 door checked, with its failures in the request log line, and
 * with the main app's 404 for a path it has no route for.
 */

import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { groupParent } from "../../src/http/lazy-route-groups.ts";
import { ROUTE_GROUPS } from "../../src/http/route-groups.ts";
import { testParts } from "../support/dispatch.ts";
import { json } from "../support/json.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";

const app = createApp(testParts);
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

/** The request log lines written while `send` runs. */
async function requestLines(send: () => Response | Promise<Response>): Promise<{ response: Response; lines: Record<string, unknown>[] }> {
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  const response = await send();
  const lines = log.mock.calls
    .map(([text]) => (typeof text === "string" && text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : undefined))
    .filter((line) => line?.event === "request") as Record<string, unknown>[];
  return { response, lines };
}

afterEach(() => vi.restoreAllMocks());

describe("the route-group table", () => {
  it("puts every route of a lazy group under one of the prefixes that load it", async () => {
    for (const group of ROUTE_GROUPS) {
      if (!("load" in group)) continue;
      const mounted = groupParent();
      (await group.load())(mounted, { parts: testParts, options: {} });
      const outside = mounted.routes
        .map((route) => route.path)
        .filter((path) => !group.prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)));
      expect({ group: group.name, outside }).toEqual({ group: group.name, outside: [] });
    }
  });

  it("names each group once", () => {
    const names = ROUTE_GROUPS.map((group) => group.name);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("a lazy group's routes", () => {
  it("see the key the /v1 door authenticated, and the request log names it", async () => {
    const { response, lines } = await requestLines(() => app.request("/v1/keys", { headers: admin }, env));
    expect(response.status).toBe(200);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ path: "/v1/keys", status: 200, principal: "admin-token" });
  });

  it("put their failure's error code in the request log line", async () => {
    const { response, lines } = await requestLines(() => app.request("/v1/audit?limit=lots", { headers: admin }, env));
    expect(response.status).toBe(400);
    const body = await json<{ error_code: string }>(response);
    expect(body.error_code).toBe("INVALID_REQUEST");
    expect(lines[0]).toMatchObject({ status: 400, error_code: "INVALID_REQUEST" });
  });

  it("answer a path under their prefix that no route has with the app's own 404", async () => {
    const underGroup = await app.request("/v1/keys/one/two/three", { headers: admin }, env);
    const nowhere = await app.request("/v1/no-such-group", { headers: admin }, env);
    expect(underGroup.status).toBe(404);
    expect(nowhere.status).toBe(404);
    const [a, b] = [await json<{ error_code: string }>(underGroup), await json<{ error_code: string }>(nowhere)];
    expect(a.error_code).toBe("NOT_FOUND");
    expect(b.error_code).toBe("NOT_FOUND");
  });

  it("answer a page group's requests (HTML, not /v1)", async () => {
    const response = await app.request("/approvals/sign-in", {}, env);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("x-request-id")).not.toBeNull();
  });
});
