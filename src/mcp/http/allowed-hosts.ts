/**
 * DNS-rebinding protection (MCP basic/transports, "Security Warning"; security best practices,
 * "Local MCP Server Compromise"): a page on another site can make a browser send requests to a
 * server on loopback by pointing its own name at 127.0.0.1. Such requests carry the attacker's
 * name in Host and its page in Origin, so both are checked against the names this server answers
 * to: loopback names always, then MCP_ALLOWED_HOSTS when set, else `*.workers.dev`.
 */

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The name part of `host[:port]` (a bracketed IPv6 literal keeps its brackets). */
function nameOf(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

/**
 * A pattern is `name` (any port), `name:port`, or `*.suffix` (any subdomain of suffix, any port).
 *
 * @example
 * hostAllowed("127.0.0.1:8787", undefined)          // true
 * hostAllowed("evil.example.com", ["gw.example.com"]) // false
 */
export function hostAllowed(host: string, allowed: readonly string[] | undefined): boolean {
  const lower = host.toLowerCase();
  const name = nameOf(lower);
  if (LOOPBACK.has(name)) return true;
  if (allowed === undefined) return name.endsWith(".workers.dev");
  return allowed.some((pattern) => {
    if (pattern.startsWith("*.")) return name.endsWith(pattern.slice(1));
    return pattern.includes(":") && !pattern.startsWith("[") ? pattern === lower : pattern === name;
  });
}

/** Why a request's Host or Origin is refused, or undefined when both are acceptable. */
export function rebindingRefusal(host: string, origin: string | undefined, allowed: readonly string[] | undefined): string | undefined {
  if (!hostAllowed(host, allowed)) return `Host '${host}' is not one this server answers to`;
  if (origin === undefined) return undefined;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return `Origin '${origin}' is not a URL`;
  }
  if (originHost === "" || !hostAllowed(originHost, allowed)) return `Origin '${origin}' is not allowed`;
  return undefined;
}
