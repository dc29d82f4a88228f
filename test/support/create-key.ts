import { expect } from "vitest";
import { type ApiSend, api } from "./api.ts";
import { json } from "./json.ts";

/** The body of POST /v1/keys. */
export interface KeyRequest {
  name: string;
  role: "agent" | "approver" | "admin";
  toolsets?: string[];
  policy?: { mode: "whitelist" | "deny"; patterns: string[] };
  rate_limit_per_minute?: number;
}

/** POST /v1/keys's answer: the only time the key itself is shown. */
export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  role: string;
  prefix: string;
  toolsets: string[] | null;
  policy: { mode: string; patterns: string[] };
  rate_limit_per_minute: number | null;
  created_at: string;
  created_by: string;
  revoked_at: string | null;
}

/**
 * Creates a key through the keys API as the admin token, failing the test unless it is created.
 * `send` is the Worker under test by default; the auth tests pass their own small app.
 */
export async function createKey(body: KeyRequest, send: ApiSend = api): Promise<CreatedKey> {
  const response = await send("/v1/keys", { body });
  expect(response.status).toBe(201);
  return json<CreatedKey>(response);
}
