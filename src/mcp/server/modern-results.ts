/**
 * What the modern era (MCP 2026-07-28) adds to every result: `resultType` (required; `complete`
 * here, `input_required` where a request needs more from the client), the server's identity in
 * `_meta`, and, on the cacheable methods, `ttlMs` and `cacheScope` (server/utilities/caching).
 *
 * The cache hint says how long toolgate itself keeps serving the same answer to the same key:
 * a key's policy and toolsets are cached per isolate for KEY_CACHE_TTL_MS (an edit reaches every
 * isolate within it), and remote servers' lists are refreshed no sooner than
 * MCP_TOOLS_TTL_SECONDS (at least 60 s), so a list can change after that many milliseconds and
 * no sooner. Lists differ per key, so the scope is `private`. A read is not cached: the key's
 * memory can change with any call.
 */
import { KEY_CACHE_TTL_MS } from "../../auth/key-cache.ts";
import { SERVER_INFO_META_KEY } from "./modern-envelope.ts";

const INPUT_REQUIRED_HEAD = '{"resultType":"input_required"';

/** The methods whose results carry a cache hint (CacheableResult), with the hint's lifetime. */
const CACHE_TTL_MS: Readonly<Record<string, number>> = {
  "server/discover": KEY_CACHE_TTL_MS,
  "tools/list": KEY_CACHE_TTL_MS,
  "prompts/list": KEY_CACHE_TTL_MS,
  "resources/list": KEY_CACHE_TTL_MS,
  "resources/templates/list": KEY_CACHE_TTL_MS,
  "resources/read": 0,
};

/**
 * `resultJson` (a serialised object) with the modern fields in front. Spliced as text: the hot
 * results are built as text and never parsed again. A field the result sets itself comes later
 * in the text and so wins (a tool's own `_meta`).
 */
export function modernResult(method: string, resultJson: string, serverInfo: string): string {
  // An input_required result (call-tool.ts) names its own type, first; no cache hint applies to it.
  if (resultJson.startsWith(INPUT_REQUIRED_HEAD)) return `{"_meta":{"${SERVER_INFO_META_KEY}":${serverInfo}},${resultJson.slice(1)}`;
  const ttl = Object.hasOwn(CACHE_TTL_MS, method) ? CACHE_TTL_MS[method] : undefined;
  const head = `{"resultType":"complete","_meta":{"${SERVER_INFO_META_KEY}":${serverInfo}}${ttl === undefined ? "" : `,"ttlMs":${ttl},"cacheScope":"private"`}`;
  return resultJson === "{}" ? `${head}}` : `${head},${resultJson.slice(1)}`;
}
