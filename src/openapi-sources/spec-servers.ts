/**
 * The base URLs a spec names for its API, in its order (the first is the default). A URL may
 * be relative to where the spec was fetched (OpenAPI 3 §4.8.5: `/v1`, or `/` when a 3.x spec
 * names none; Swagger 2.0 without `schemes` means the spec's own scheme), so the caller
 * resolves it against the spec's URL or requires a base_url.
 */

/** Servers kept; a spec listing more names regional or staging copies no call chooses between. */
export const MAX_SERVERS = 20;

/** The servers of a 3.x document, or of a 2.0 document from host, basePath and schemes. */
export function specServers(doc: Record<string, unknown>): { servers: string[]; problems: string[] } {
  return doc.swagger === "2.0" ? swaggerServers(doc) : openApiServers(doc.servers);
}

function swaggerServers(doc: Record<string, unknown>): { servers: string[]; problems: string[] } {
  const basePath = typeof doc.basePath === "string" ? doc.basePath : "";
  if (typeof doc.host !== "string" || doc.host === "") return { servers: [basePath || "/"], problems: [] };
  const schemes = Array.isArray(doc.schemes) ? doc.schemes.filter((scheme) => scheme === "https" || scheme === "http") : [];
  // Swagger 2.0: without schemes, the scheme the spec itself was fetched with; `//host` resolves to it.
  const servers = schemes.length === 0 ? [`//${doc.host}${basePath}`] : schemes.map((scheme) => `${scheme}://${doc.host}${basePath}`);
  return { servers, problems: [] };
}

function openApiServers(listed: unknown): { servers: string[]; problems: string[] } {
  if (!Array.isArray(listed) || listed.length === 0) return { servers: ["/"], problems: [] };
  const servers: string[] = [];
  const problems: string[] = [];
  for (const server of listed.slice(0, MAX_SERVERS)) {
    if (typeof server !== "object" || server === null || typeof (server as { url?: unknown }).url !== "string") {
      problems.push("a server without a url was left out");
      continue;
    }
    const { url, variables } = server as { url: string; variables?: unknown };
    const substituted = substitute(url, typeof variables === "object" && variables !== null ? (variables as Record<string, unknown>) : {});
    if (typeof substituted === "string") servers.push(substituted);
    else problems.push(`server '${url.slice(0, 200)}' was left out: its variable '${substituted.missing}' has no default`);
  }
  if (listed.length > MAX_SERVERS) problems.push(`only the first ${MAX_SERVERS} of ${listed.length} servers were kept`);
  return { servers: servers.length > 0 ? servers : ["/"], problems };
}

// §4.8.6: each `{name}` in a server URL is replaced by its variable's default.
function substitute(url: string, variables: Record<string, unknown>): string | { missing: string } {
  let missing: string | undefined;
  const result = url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    const value = typeof variable === "object" && variable !== null ? (variable as { default?: unknown }).default : undefined;
    if (typeof value === "string") return value;
    missing ??= name;
    return whole;
  });
  return missing === undefined ? result : { missing };
}
