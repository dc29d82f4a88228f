/**
 * The `identity` option of a remote MCP server (and of an OpenAPI source, which can take this
 * same schema): send a short-lived ES256 JWT naming the person behind the call, so an internal
 * service can authorise them rather than the gateway. docs/identity.md shows how to verify it.
 */

import { z } from "@hono/zod-openapi";
import { once } from "../bundle/once.ts";
import { HEADER_NAME_PATTERN } from "../net/header-name.ts";

/** The secret holding the signing key(s): a private EC P-256 JWK, or a JSON array of them (the first signs). */
export const IDENTITY_KEY_SECRET = "IDENTITY_SIGNING_KEY";

/** The header the token travels in unless configured otherwise. */
export const DEFAULT_IDENTITY_HEADER = "X-Toolgate-Identity";

/**
 * Longest lifetime a token may be given: it is made per call, so it only has to outlive one
 * request; a leaked one is replayable until it expires.
 */
export const MAX_IDENTITY_TTL_MINUTES = 15;

/** Headers that carry the protocol itself and may not be replaced by the token. */
const RESERVED = new Set(["accept", "content-type", "content-length", "host", "mcp-session-id", "mcp-protocol-version"]);

/** Built at first use (a server's or source's configuration), not at start-up. */
export const identityOptionSchema = once(() =>
  z
    .strictObject({
      /** The header the JWT is sent in (its value is the bare token). */
      header: z
        .string()
        .regex(HEADER_NAME_PATTERN, "must be a valid HTTP header name")
        .refine((name) => !RESERVED.has(name.toLowerCase()), "may not be Accept, Content-Type, Host or an MCP session header")
        .default(DEFAULT_IDENTITY_HEADER),
      /** The `aud` claim; the origin of the server's URL when absent. */
      audience: z.string().min(1).max(500).optional(),
      /** Minutes until the token expires (`exp`). */
      ttl_minutes: z.number().int().min(1).max(MAX_IDENTITY_TTL_MINUTES).default(5),
    })
    .openapi({
      description: `Sends a short-lived ES256 JWT (claims sub, tool, call_id, aud, exp) in a header on every call, signed with the ${IDENTITY_KEY_SECRET} secret; public keys at /.well-known/jwks.json.`,
    }),
);

export type IdentityOption = z.output<ReturnType<typeof identityOptionSchema>>;
