/**
 * The origin and host of a request's URL, read off the string instead of parsed: every /mcp
 * request needs them (the DNS-rebinding guard, approval links) and a full `new URL()` showed in
 * its CPU profile. Exact because `Request.url` is always a serialized WHATWG URL, whose http(s)
 * form is `scheme://host[:port]` followed by a path that starts with "/" (default ports already
 * dropped, host already lowercased). Anything else, or credentials before the host, is parsed.
 */

/** `https://host:port` of an absolute request URL, as `new URL(url).origin` gives it. */
export function requestOrigin(url: string): string {
  const start = url.startsWith("https://") ? 8 : url.startsWith("http://") ? 7 : -1;
  const end = start === -1 ? -1 : url.indexOf("/", start);
  if (end === -1 || url.lastIndexOf("@", end) >= start) return new URL(url).origin;
  return url.slice(0, end);
}

/** `host:port` of an absolute request URL, as `new URL(url).host` gives it. */
export function requestHost(url: string): string {
  const origin = requestOrigin(url);
  return origin.slice(origin.indexOf("://") + 3);
}
