/**
 * Stores that fail as an outage of them would, made from the real bindings: a D1 database whose
 * tables are gone (every statement is answered with D1's own error) and the KV namespace with
 * the keys under some prefixes refused. Nothing of toolgate's is replaced; only what it talks to
 * stops answering.
 */
import { env } from "cloudflare:workers";
import { createApp } from "../../src/http/app.ts";
import { testParts } from "../support/dispatch.ts";
import { ORIGIN, PageClient } from "./admin-client.ts";

/**
 * The second audit shard's database (unused unless AUDIT_SHARDS is set; emptied for each test
 * file, and migrated only by the files that use it as a shard) with every table dropped: as DB,
 * it answers each statement with "no such table".
 */
export async function d1WithoutTables(): Promise<D1Database> {
  const db = env.DB_AUDIT_1;
  if (db === undefined) throw new Error("the test D1 DB_AUDIT_1 is not bound (vitest.config.ts)");
  const { results } = await db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'")
    .all<{ name: string }>();
  for (const { name } of results) await db.prepare(`DROP TABLE IF EXISTS "${name}"`).run();
  return db;
}

/** Why a refused KV operation fails: the text workerd gives when KV answers 503. */
export const KV_OUTAGE = "KV GET failed: 503 Service Unavailable";

/**
 * The real KV namespace, with every operation on a key (or list) under one of `prefixes`
 * rejected; each refused key is pushed to `refused`, so a test can see the store was asked.
 */
export function kvRefusing(prefixes: readonly string[], refused: string[] = []): KVNamespace {
  const refuses = (first: unknown): boolean => {
    const key = typeof first === "string" ? first : typeof first === "object" && first !== null ? String((first as { prefix?: unknown }).prefix ?? "") : "";
    if (!prefixes.some((prefix) => key.startsWith(prefix))) return false;
    refused.push(key);
    return true;
  };
  return new Proxy(env.KV, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => (refuses(args[0]) ? Promise.reject(new Error(KV_OUTAGE)) : method.apply(target, args));
    },
  });
}

const app = createApp(testParts);

/** A browser on the console of a Worker running with `bindings` in place of the real ones; `from` lends it its sign-in. */
export function consoleWith(bindings: Partial<Env>, from?: PageClient): PageClient {
  const outage = { ...env, ...bindings } as Env;
  const client = new PageClient(ORIGIN, (request) => Promise.resolve(app.fetch(request, outage)));
  for (const [name, value] of from?.cookies ?? []) client.cookies.set(name, value);
  return client;
}

/** Text that must never reach a page: a store's own error, a stack frame, a generic server error. */
export const INTERNALS = [/D1_ERROR/, /SQLITE/i, /no such table/i, /KV GET failed/, /\bat .+\.(ts|js):\d+/, /Internal Server Error/, /TypeError|SyntaxError/];
