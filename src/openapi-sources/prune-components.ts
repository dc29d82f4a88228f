/**
 * Drops reusable components no operation's inputs reach. Most of a real spec's schemas describe
 * responses (GitHub's spec keeps under a third of its 969 schemas once responses are gone), and
 * the upgrader and the dereferencer would otherwise walk them all. This only finds which
 * components are named: it follows `$ref` strings by their first two pointer tokens
 * (`#/components/schemas/Pet`, `#/definitions/Pet`) and resolves nothing; a `$ref` of any other
 * shape keeps every component, so resolution (resolve-spec-refs.ts) sees what it would have.
 */
import { isPlainRecord } from "../arguments/coerce-scalars.ts";

/** The sections whose entries are kept only when reached; 2.0 keeps its at the root. */
const PRUNED = { components: ["schemas", "parameters", "requestBodies", "pathItems"], root: ["definitions", "parameters"] } as const;

/** Removes, in place, components of `doc` (a private copy) that no operation reaches by `$ref`. */
export function pruneComponents(doc: Record<string, unknown>): void {
  const sections = new Map<string, Record<string, unknown>>();
  const components = isPlainRecord(doc.components) ? doc.components : {};
  for (const name of PRUNED.components) if (isPlainRecord(components[name])) sections.set(`components/${name}`, components[name]);
  for (const name of PRUNED.root) if (isPlainRecord(doc[name])) sections.set(name, doc[name]);
  const reached = new Map<string, Set<string>>();
  const pending: unknown[] = [doc.paths];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (typeof value !== "object" || value === null) continue;
    const ref = (value as Record<string, unknown>).$ref;
    if (typeof ref === "string") {
      const target = componentOf(ref, sections);
      // A `$ref` this cannot place might reach anything: keep every component.
      if (target === undefined) return;
      if (target === null) continue;
      const [section, name] = target;
      const names = reached.get(section) ?? new Set<string>();
      reached.set(section, names);
      if (!names.has(name)) {
        names.add(name);
        pending.push(sections.get(section)?.[name]);
      }
    }
    for (const child of Object.values(value)) if (typeof child === "object" && child !== null) pending.push(child);
  }
  for (const [section, entries] of sections) {
    const names = reached.get(section);
    for (const name of Object.keys(entries)) if (names?.has(name) !== true) delete entries[name];
  }
}

/**
 * The section and name a `$ref` points into; null when it points at none of the pruned
 * sections (`#/paths/...`, or outside the spec: resolution reports those), undefined when
 * it cannot tell.
 */
function componentOf(ref: string, sections: ReadonlyMap<string, unknown>): [string, string] | null | undefined {
  if (!ref.startsWith("#/")) return null;
  let tokens: string[];
  try {
    // A pointer in a URI fragment may be percent-encoded (RFC 6901 §6), then `~1` is `/` and `~0` is `~` (§4).
    tokens = decodeURIComponent(ref.slice(2))
      .split("/")
      .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
  } catch {
    return undefined;
  }
  const [first, second, third] = tokens;
  if (first === "components" && second !== undefined && third !== undefined && sections.has(`components/${second}`)) return [`components/${second}`, third];
  if (first !== undefined && second !== undefined && sections.has(first)) return [first, second];
  if (first === "paths") return null;
  return first === "components" && second !== undefined && !sections.has(`components/${second}`) ? null : undefined;
}
