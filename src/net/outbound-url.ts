/**
 * The SSRF guard every outbound URL that an admin, a webhook or a remote server hands us passes
 * before we fetch it (MCP federation, webhook callbacks, approval notifications).
 *
 * It judges the URL as the WHATWG parser normalises it, so the spellings attackers use for
 * loopback (`0x7f.1`, `2130706433`, `[::ffff:127.0.0.1]`) are caught as the addresses they are.
 * What it cannot see is a public name whose DNS answer is private (rebinding): Workers resolve
 * names inside `fetch`, out of our reach. On Cloudflare's network a Worker's fetch cannot reach
 * private address space anyway, so the guard's job there is to refuse what we can see and to make
 * local development (where fetch can reach loopback) opt in explicitly through `OUTBOUND_ALLOW`.
 */
import { compileGlob } from "../policy/glob.ts";

export type OutboundCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** Names that mean "this machine" or "this private network" whatever DNS says. */
const PRIVATE_NAME_SUFFIXES = [".localhost", ".local", ".internal", ".lan", ".home.arpa", ".intranet", ".corp"];

/** IPv4 ranges that are not the public internet (RFC 6890 special-purpose registry, abridged). */
const PRIVATE_V4: readonly (readonly [number, number])[] = [
  cidr4("0.0.0.0", 8), // "this network"
  cidr4("10.0.0.0", 8),
  cidr4("100.64.0.0", 10), // carrier-grade NAT
  cidr4("127.0.0.0", 8),
  cidr4("169.254.0.0", 16), // link-local, cloud metadata endpoints
  cidr4("172.16.0.0", 12),
  cidr4("192.0.0.0", 24),
  cidr4("192.0.2.0", 24), // documentation
  cidr4("192.168.0.0", 16),
  cidr4("198.18.0.0", 15), // benchmarking
  cidr4("198.51.100.0", 24),
  cidr4("203.0.113.0", 24),
  cidr4("224.0.0.0", 4), // multicast
  cidr4("240.0.0.0", 4), // reserved, broadcast
];

function cidr4(base: string, bits: number): readonly [number, number] {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return [((ipv4ToInt(base) ?? 0) & mask) >>> 0, mask] as const;
}

function ipv4ToInt(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value >>> 0;
}

function isPrivateV4(value: number): boolean {
  return PRIVATE_V4.some(([base, mask]) => (value & mask) >>> 0 === base);
}

/**
 * Expands an IPv6 literal (brackets removed) into eight 16-bit groups. The URL parser has
 * already normalised it to compressed hex, dotted-quad tails included, so only `::` is left.
 */
function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : Number.NaN)));
  const left = parse(halves[0] ?? "");
  const right = halves.length === 2 ? parse(halves[1] ?? "") : [];
  const fill = 8 - left.length - right.length;
  if (halves.length === 2 ? fill < 0 : fill !== 0) return undefined;
  const groups = [...left, ...new Array<number>(fill).fill(0), ...right];
  return groups.every((g) => Number.isInteger(g)) ? groups : undefined;
}

function isPrivateV6(groups: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embeddedV4 = ((g6 << 16) >>> 0) + g7;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    if (g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) return true; // :: and ::1
    if (g5 === 0xffff || g5 === 0) return isPrivateV4(embeddedV4); // IPv4-mapped / -compatible
  }
  if (g0 === 0x64 && g1 === 0xff9b) return isPrivateV4(embeddedV4); // NAT64 well-known prefix
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  if (g0 === 0x2001 && g1 === 0x0db8) return true; // documentation
  return false;
}

/** Why a host is not a public internet destination, or undefined when it is. */
function privateReason(hostname: string): string | undefined {
  if (hostname.startsWith("[")) {
    const groups = ipv6Groups(hostname.slice(1, -1));
    if (groups === undefined) return `'${hostname}' is not a valid IPv6 address`;
    return isPrivateV6(groups) ? `${hostname} is a loopback, private, link-local or reserved IPv6 address` : undefined;
  }
  const v4 = ipv4ToInt(hostname);
  if (v4 !== undefined) return isPrivateV4(v4) ? `${hostname} is a loopback, private, link-local or reserved IPv4 address` : undefined;
  const name = hostname.replace(/\.$/, "").toLowerCase();
  if (name === "localhost" || PRIVATE_NAME_SUFFIXES.some((suffix) => name.endsWith(suffix))) return `'${hostname}' names a local or private host`;
  if (!name.includes(".")) return `'${hostname}' is a single-label name, which resolves only inside a private network`;
  return undefined;
}

/** Compiled OUTBOUND_ALLOW patterns, per list, so a request does not recompile them. */
const compiled = new WeakMap<readonly string[], ((target: string) => boolean)[]>();

function allowedBy(allow: readonly string[], hostname: string, hostPort: string): boolean {
  if (allow.length === 0) return false;
  let tests = compiled.get(allow);
  if (tests === undefined) {
    tests = allow.map((pattern) => compileGlob(pattern.trim().toLowerCase()));
    compiled.set(allow, tests);
  }
  return tests.some((test) => test(hostname) || test(hostPort));
}

/**
 * Whether `url` may be fetched. `allow` holds host or host:port globs (`127.0.0.1:9240`,
 * `*.test`) that may be private anyway; it is for local development and tests.
 */
export function checkOutboundUrl(url: string, allow: readonly string[]): OutboundCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: `'${url.slice(0, 200)}' is not an absolute URL` };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return { ok: false, reason: `only http and https URLs may be fetched, not ${parsed.protocol.replace(/:$/, "")}` };
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return { ok: false, reason: "credentials in the URL are refused; configure them as a header from a secret" };
  }
  const hostname = parsed.hostname.toLowerCase();
  const port = parsed.port === "" ? (parsed.protocol === "https:" ? "443" : "80") : parsed.port;
  const reason = privateReason(hostname);
  if (reason === undefined || allowedBy(allow, hostname, `${hostname}:${port}`)) return { ok: true, url: parsed };
  return { ok: false, reason: `${reason}; add it to OUTBOUND_ALLOW to permit it (local development only)` };
}

/** Redirect hops followed by fetchOutbound; each is checked like the first URL. */
export const MAX_OUTBOUND_REDIRECTS = 5;

export class OutboundUrlError extends Error {
  override readonly name = "OutboundUrlError";
}

/**
 * `fetch` for a checked URL, following redirects itself so a public URL cannot bounce the
 * request to a private one (the platform's own redirect handling would not ask us).
 */
export async function fetchOutbound(
  url: string,
  init: RequestInit,
  allow: readonly string[],
  fetcher: (input: string, init: RequestInit) => Promise<Response> = (input, options) => fetch(input, options),
): Promise<Response> {
  let target = url;
  for (let hop = 0; ; hop++) {
    const check = checkOutboundUrl(target, allow);
    if (!check.ok) throw new OutboundUrlError(check.reason);
    const response = await fetcher(check.url.href, { ...init, redirect: "manual" });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || location === null) return response;
    if (hop >= MAX_OUTBOUND_REDIRECTS) throw new OutboundUrlError(`more than ${MAX_OUTBOUND_REDIRECTS} redirects from ${url}`);
    await response.body?.cancel();
    target = new URL(location, check.url).href;
  }
}
