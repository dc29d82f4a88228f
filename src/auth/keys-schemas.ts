/** Wire shapes of the admin keys API: the request bodies it validates and the records it returns. */
import { z } from "@hono/zod-openapi";
import { type ApiKeyRecord, KEY_KINDS } from "./key-store.ts";
import { KEY_SCOPES, ROLES } from "./principal.ts";

// Tool names match ^[a-zA-Z0-9_-]{1,64}$ (registry.ts); a pattern adds the glob characters.
const PatternSchema = z
  .string()
  .regex(/^[a-zA-Z0-9_\-*?]{1,128}$/, "must be a tool name or a glob: letters, digits, '_', '-', '*' (any run) and '?' (one character)")
  .openapi({ example: "mcp__github__*" });

const PolicySchema = z
  .object({
    mode: z.enum(["whitelist", "deny"]).openapi({ description: "whitelist: only tools matching a pattern; deny: every tool but those matching one." }),
    patterns: z.array(PatternSchema).max(200),
  })
  .strict()
  .openapi("ToolPolicy");

export const CreateKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100).openapi({ example: "research-agent" }),
    role: z.enum(ROLES).openapi({ description: "agent calls tools; approver also decides approvals; admin also manages keys." }),
    toolsets: z
      .array(z.string().min(1).max(64))
      .max(100)
      .nullable()
      .optional()
      .openapi({ description: "Toolsets the key may use (resolved with their includes); null or absent means every toolset, [] none.", example: ["research"] }),
    policy: PolicySchema.optional().openapi({ description: "Defaults to {mode: deny, patterns: []}: no tool denied." }),
    rate_limit_per_minute: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .nullable()
      .optional()
      .openapi({ description: "Calls per minute for this key; null or absent uses RATE_LIMIT_PER_MINUTE.", example: 120 }),
    scopes: z
      .array(z.enum(KEY_SCOPES))
      .max(KEY_SCOPES.length * 2)
      .optional()
      .openapi({ description: "Scopes beyond the role. metrics: may read GET /metrics (admins always may). Absent means none.", example: ["metrics"] }),
  })
  .strict()
  .openapi("CreateApiKey");

/** PATCH /v1/keys/{id}: the create body's access fields, each optional, with the same rules. */
export const UpdateKeyBody = CreateKeyBody.pick({ toolsets: true, policy: true, rate_limit_per_minute: true, scopes: true }).strict().openapi("UpdateApiKey");

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    prefix: z.string().openapi({ description: "The key's first characters, to tell keys apart; the key itself is never shown again.", example: "tg_3q2-7w" }),
    toolsets: z.array(z.string()).nullable(),
    policy: PolicySchema,
    rate_limit_per_minute: z.number().int().nullable(),
    scopes: z.array(z.enum(KEY_SCOPES)),
    created_at: z.string(),
    created_by: z.string().openapi({ description: "keyId of the admin that created it; admin-token for the bootstrap token." }),
    revoked_at: z.string().nullable(),
    kind: z.enum(KEY_KINDS).openapi({
      description:
        "key: a bearer key; oauth_grant: a person's consent to an MCP client on the /oauth/authorize page (its tokens work on /mcp only; DELETE ends them at once).",
    }),
    oauth_client_id: z.string().nullable().openapi({ description: "The OAuth client a grant was given to; null for a key." }),
  })
  .openapi("ApiKey");

export const CreatedKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "The key. Shown only in this response: store it now; only its SHA-256 digest is kept." }),
}).openapi("CreatedApiKey");

export const KeyIdParam = z.object({ id: z.string().openapi({ example: "0b6f7c8e-3c1d-4f7a-9a55-2f4c1e0d9b21" }) });

/** The API's view of a stored key. */
export function toWire(record: ApiKeyRecord): z.infer<typeof ApiKeySchema> {
  return {
    id: record.id,
    name: record.name,
    role: record.role,
    prefix: record.prefix,
    toolsets: record.toolsets,
    policy: { mode: record.policy.mode, patterns: [...record.policy.patterns] },
    rate_limit_per_minute: record.rateLimitPerMinute,
    scopes: [...record.scopes],
    created_at: record.createdAt,
    created_by: record.createdBy,
    revoked_at: record.revokedAt,
    kind: record.kind,
    oauth_client_id: record.oauthClientId,
  };
}
