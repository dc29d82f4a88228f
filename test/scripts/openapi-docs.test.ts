/**
 * The OpenAPI document and the /docs page of the real Worker, served by wrangler as `npm start`
 * serves it. The document is validated against the OpenAPI 3.1 schema with
 * @seriousme/openapi-schema-validator, which runs here in Node because it reads its
 * meta-schemas from its package's files (workerd's file system does not have them).
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "./support/local-worker.ts";

const ADMIN_TOKEN = `tg_docs_admin_${crypto.randomUUID().replaceAll("-", "")}`;

let worker: LocalWorker;

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${worker.origin}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as T;
}

async function documentFor(key: string | undefined, query = ""): Promise<Record<string, unknown>> {
  const res = await fetch(`${worker.origin}/openapi.json${query}`, key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function expectValid(doc: Record<string, unknown>): Promise<void> {
  const result = await new Validator().validate(doc);
  expect(result.errors, JSON.stringify(result.errors, null, 2)?.slice(0, 2_000)).toBeUndefined();
  expect(result.valid).toBe(true);
}

beforeAll(async () => {
  worker = await startLocalWorker({ port: 0, secrets: { ADMIN_TOKEN } });
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
}, 60_000);

describe("/openapi.json is valid OpenAPI 3.1", () => {
  it("without a key", async () => {
    await expectValid(await documentFor(undefined));
  }, 60_000);

  it("with the admin token: every tool's operation", async () => {
    const doc = await documentFor(ADMIN_TOKEN);
    expect(Object.keys(doc.paths as object)).toContain("/v1/tools/echo/call");
    await expectValid(doc);
  }, 60_000);

  it("with a key whose tool schemas have $defs and $refs, and with only=tools", async () => {
    const { key } = await post<{ key: string }>("/v1/keys", { name: "docs-conformance", role: "agent", toolsets: ["core", "conformance"] });
    const doc = await documentFor(key);
    expect(Object.keys((doc.components as { schemas: object }).schemas)).toContain("tool.json_schema_2020_12_tool");
    await expectValid(doc);
    await expectValid(await documentFor(key, "?only=tools"));
  }, 60_000);

  it("and the validator is not a rubber stamp: a broken document fails it", async () => {
    const doc = await documentFor(ADMIN_TOKEN);
    const broken = { ...doc, paths: { ...(doc.paths as object), "/v1/tools/echo/call": { post: { operationId: "echo", requestBody: { required: true } } } } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  }, 60_000);
});
