/**
 * The `requestState` of a modern-era `input_required` result (MCP 2026-07-28, multi-round-trip
 * requests): the client echoes it byte for byte on its retry, so it is the only memory a
 * stateless server has of the first round. It must be tamper-proof: it is
 * `<base64url(JSON)>.<HMAC-SHA256 hex>`, the MAC under a key derived from the MCP session secret
 * (so it never signs with ADMIN_TOKEN itself), over the payload. The payload binds the key that
 * asked, the endpoint, the real tool and a hash of the arguments, and expires; a retry that
 * changes any of them is refused rather than read.
 *
 * It is not encrypted: it holds ids the client already saw (an approval's id is on its page),
 * hashes, and answers the client itself gave; never arguments.
 */
import { canonicalJson } from "../../audit/canonical-json.ts";
import { derivedKey } from "../../crypto/derived-key.ts";
import { fromBase64url, hexToBytes, toBase64url } from "../../crypto/encoding.ts";
import { hmacSha256Hex, hmacSha256Matches } from "../../crypto/hmac.ts";
import { sha256Hex } from "../../crypto/sha256.ts";

const KEY_LABEL = "toolgate mcp-request-state v1";
const STATE = /^([A-Za-z0-9_-]+)\.([0-9a-f]{64})$/;
/** Bounded so a client cannot make us MAC megabytes; a tool's answers fit many times over. */
export const MAX_STATE_CHARS = 100_000;
const encoder = new TextEncoder();

/** A question a tool asked the client, by the hash of its method and params, with the client's answer. */
export interface AnsweredQuestion {
  hash: string;
  result: unknown;
}

/**
 * What a round remembers: an approval it waits on, or a tool's questions: those awaiting an
 * answer in this round (key -> hash) and those answered in earlier ones. Answers travel in the
 * state because the client sends only the latest round's `inputResponses`, and a tool asked
 * twice must find its first answer on the third leg; they are the client's own words, so the
 * state is signed, not sealed.
 */
export type RoundMemory =
  | { kind: "approval"; approvalId: string; sessionId: string }
  | {
      kind: "questions";
      asked: Readonly<Record<string, string>>;
      answered: Readonly<Record<string, AnsweredQuestion>>;
      /** What the tool left for its retry (ClientChannel.resume): a federated server's own requestState. */
      carried?: unknown;
    };

/** The call a state belongs to; a retry must present the same one. */
export interface RoundBinding {
  keyId: string;
  /** `/mcp` or the toolset of `/mcp/{toolset}`. */
  endpoint: string;
  /** The real tool (an alias resolved). */
  tool: string;
  /** SHA-256 of the canonical JSON of the arguments as the client sent them. */
  argumentsSha256: string;
}

interface Payload extends RoundBinding {
  v: 1;
  memory: RoundMemory;
  /** Epoch ms. */
  exp: number;
}

export type ReadState = { ok: true; memory: RoundMemory } | { ok: false; reason: string };

const signingKey = (secret: string): Promise<string> => derivedKey(secret, KEY_LABEL);

/** The hash a binding carries for `args` (what tools/call's `arguments` held). */
export function argumentsHash(args: unknown): string {
  return sha256Hex(canonicalJson(args ?? {}));
}

/** A signed state for `binding`, valid for `ttlMs`. */
export async function signState(secret: string, binding: RoundBinding, memory: RoundMemory, ttlMs: number, now = Date.now()): Promise<string> {
  const body = toBase64url(payloadBytes(binding, memory, ttlMs, now));
  return `${body}.${await hmacSha256Hex(await signingKey(secret), body)}`;
}

/**
 * How long signState's answer for the same arguments is, without the MAC: its base64url body
 * (4 characters per 3 bytes, unpadded), the dot and 64 hex digits. For a check made before a
 * state is signed, such as a tool's question whose round would carry too much.
 */
export function stateChars(binding: RoundBinding, memory: RoundMemory, ttlMs: number, now = Date.now()): number {
  return Math.ceil((payloadBytes(binding, memory, ttlMs, now).length * 4) / 3) + 1 + 64;
}

function payloadBytes(binding: RoundBinding, memory: RoundMemory, ttlMs: number, now: number): Uint8Array {
  const payload: Payload = { v: 1, ...binding, memory, exp: now + ttlMs };
  return encoder.encode(JSON.stringify(payload));
}

/** Reads a state the client echoed: the MAC (constant time), then expiry, then the binding, field by field. */
export async function readState(secret: string, state: unknown, binding: RoundBinding, now = Date.now()): Promise<ReadState> {
  const match = typeof state === "string" && state.length <= MAX_STATE_CHARS ? STATE.exec(state) : null;
  if (match === null) return { ok: false, reason: "it is not a requestState this server issued" };
  const [, body = "", mac = ""] = match;
  if (!(await hmacSha256Matches(await signingKey(secret), hexToBytes(mac), encoder.encode(body)))) {
    return { ok: false, reason: "its signature does not match (it was changed, or issued by another server)" };
  }
  // Signed by us, so it parses; a shape check anyway keeps an old version from being misread.
  const payload = JSON.parse(new TextDecoder().decode(fromBase64url(body))) as Partial<Payload>;
  if (payload.v !== 1 || payload.memory === undefined || typeof payload.exp !== "number") return { ok: false, reason: "it is of an older format" };
  if (payload.exp <= now) return { ok: false, reason: "it has expired" };
  for (const field of ["keyId", "endpoint", "tool", "argumentsSha256"] as const) {
    if (payload[field] !== binding[field]) return { ok: false, reason: `it belongs to another ${FIELD_NAMES[field]}` };
  }
  return { ok: true, memory: payload.memory };
}

const FIELD_NAMES = { keyId: "API key", endpoint: "endpoint", tool: "tool", argumentsSha256: "set of arguments" } as const;
