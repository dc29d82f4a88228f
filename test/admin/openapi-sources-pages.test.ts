/**
 * The OpenAPI sources page: a source added from the form (its spec fetched and pinned), listed
 * with its tools and operations left out; a changed spec shown as changed definitions (added,
 * removed, changed tools) until an admin accepts it; disable, enable, refresh and remove, all
 * through /v1/openapi-sources; a refusal shows the API's message.
 */
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { consoleCsrf, signedInAs } from "./admin-client.ts";

const SPECS = "http://specs.upstream.test";

async function publish(name: string, spec: unknown): Promise<void> {
  expect((await fetch(`${SPECS}/${name}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(spec) })).status).toBe(204);
}

function inventorySpec(operations: Record<string, string>) {
  const paths: Record<string, unknown> = {};
  for (const [path, operationId] of Object.entries(operations))
    paths[path] = { get: { operationId, summary: `Read ${path}`, responses: { 200: { description: "ok" } } } };
  // One operation whose body toolgate cannot write, so the page lists an operation left out.
  paths["/upload"] = {
    post: {
      operationId: "upload",
      requestBody: { required: true, content: { "application/octet-stream": { schema: { type: "string" } } } },
      responses: { 200: { description: "ok" } },
    },
  };
  return { openapi: "3.1.0", info: { title: "Inventory", version: "1" }, servers: [{ url: "https://inventory.upstream.test" }], paths };
}

const cardOf = (page: string, name: string) =>
  new RegExp(`<section[^>]*data-source="${name}"[\\s\\S]*?</section>\\s*(?=<section|</main>|$)`).exec(page)?.[0] ?? "";

describe("the OpenAPI sources page", () => {
  it("adds a source from the form, shows changed definitions until accepted, and switches it off, on and out", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    await publish("inventory", inventorySpec({ "/items": "listItems", "/items/{id}": "getItem" }));

    const added = await client.post("/admin/openapi-sources", {
      csrf,
      name: "inventory",
      spec_url: `${SPECS}/inventory`,
      base_url: "",
      bearer_secret: "INVENTORY_TOKEN",
    });
    expect(added.status).toBe(201);
    expect(client.lastPage).toContain("inventory added with 2 tools");
    let card = cardOf(client.lastPage, "inventory");
    expect(card).toContain("inventory__listItems");
    expect(card).toContain("Operations left out");
    expect(card).toContain("application/octet-stream");
    expect(card).toContain("bearer");
    expect(await (await api("/v1/openapi-sources/inventory")).json()).toMatchObject({
      config: { auth: { type: "bearer", token: { secret: "INVENTORY_TOKEN" } } },
    });

    await publish("inventory", inventorySpec({ "/items": "listItems", "/stock": "getStock" }));
    expect((await client.post("/admin/openapi-sources/inventory/refresh", { csrf })).status).toBe(303);
    await client.get("/admin/openapi-sources?refresh=inventory");
    card = cardOf(client.lastPage, "inventory");
    expect(card).toContain("The spec changed: not served until accepted");
    expect(card).toMatch(/Added<\/dt>\s*<dd><code>inventory__getStock/);
    expect(card).toMatch(/Removed<\/dt>\s*<dd><code>inventory__getItem/);

    expect((await client.post("/admin/openapi-sources/inventory/accept", { csrf })).status).toBe(303);
    await client.get("/admin/openapi-sources?accept=inventory");
    expect(client.lastPage).toContain("changed spec accepted");
    expect(cardOf(client.lastPage, "inventory")).toContain("inventory__getStock");

    expect((await client.post("/admin/openapi-sources/inventory/disable", { csrf })).status).toBe(303);
    expect(await (await api("/v1/openapi-sources/inventory")).json()).toMatchObject({ enabled: false, tools: [] });
    expect((await client.post("/admin/openapi-sources/inventory/enable", { csrf })).status).toBe(303);
    expect((await client.post("/admin/openapi-sources/inventory/remove", { csrf })).status).toBe(303);
    expect((await api("/v1/openapi-sources/inventory")).status).toBe(404);
    expect((await client.post("/admin/openapi-sources/inventory/refresh", { csrf })).status).toBe(404);
  });

  it("shows the API's refusal on the page, markup inert", async () => {
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    const refused = await client.post("/admin/openapi-sources", { csrf, name: "private", spec_url: "http://127.0.0.1:9/<b>spec</b>" });
    expect(refused.status).toBe(422);
    expect(client.lastPage).toContain("the spec URL is refused");
    expect(client.lastPage).not.toContain("<b>spec</b>");
  });

  it("is the admin's: an approver is refused", async () => {
    const { client } = await signedInAs("approver");
    expect((await client.get("/admin/openapi-sources")).status).toBe(403);
  });
});
