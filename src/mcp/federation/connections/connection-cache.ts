/**
 * The opened grants of per-user connections, kept per isolate so a busy principal's calls cost
 * no D1 read and no AES-GCM open (issue 30: the own-token lookup adds at most 20 µs of CPU).
 *
 * The trade-off, accepted and the same as the key cache's (src/auth/key-cache.ts): a connection
 * ended through another isolate (revoked, deleted with its key or its upstream, or refused at a
 * refresh there) keeps working in this one for at most `ttlMs`, 10 s by default, after its entry
 * was filled. A revoked key itself stops at once here and within the same 10 s elsewhere, since
 * its calls are refused at the door before any lookup. Every write to a connection in this
 * isolate (connect, reconnect, refresh, needs-reconnect, delete) drops its entry at once
 * (connection-store.ts), and an entry never outlives its access token's refresh margin, so a
 * token past its expiry is never served from here: the lookup reads D1, where another isolate
 * may already have stored a refreshed one.
 */
import { EXPIRY_MARGIN_MS, type OAuthGrant } from "../../client/oauth/oauth-grant.ts";

/** How long an opened grant is trusted without reading D1 again: the revocation bound across isolates. */
export const CONNECTION_CACHE_TTL_MS = 10_000;

/** Entries kept at most; the oldest go first, so many principals cannot grow memory without bound. */
const MAX_ENTRIES = 10_000;

interface Entry {
  principal: string;
  upstream: string;
  grant: OAuthGrant;
  until: number;
}

const keyOf = (principal: string, upstream: string): string => `${principal}\n${upstream}`;

/** Opened grants by principal and upstream, each trusted for `ttlMs` and never past its token's expiry margin. */
export class ConnectionCache {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  // The clock is read through Date at each call, not captured: a test's fake Date reaches it too.
  constructor({ ttlMs = CONNECTION_CACHE_TTL_MS, now = () => Date.now() }: { ttlMs?: number; now?: () => number } = {}) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  get(principal: string, upstream: string): OAuthGrant | undefined {
    const key = keyOf(principal, upstream);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.grant;
  }

  /** Keeps a grant just read from D1 and opened; one already due for refresh is not kept. */
  set(principal: string, upstream: string, grant: OAuthGrant): void {
    const key = keyOf(principal, upstream);
    this.#entries.delete(key);
    const until = Math.min(this.#now() + this.#ttlMs, grant.expiresAt === undefined ? Number.POSITIVE_INFINITY : grant.expiresAt - EXPIRY_MARGIN_MS);
    if (until <= this.#now()) return;
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { principal, upstream, grant, until });
  }

  forget(principal: string, upstream: string): void {
    this.#entries.delete(keyOf(principal, upstream));
  }

  /** Drops every entry of a principal (its key or grant was revoked). */
  forgetPrincipal(principal: string): void {
    for (const [key, entry] of this.#entries) if (entry.principal === principal) this.#entries.delete(key);
  }

  /** Drops every entry for an upstream (it was removed). */
  forgetUpstream(upstream: string): void {
    for (const [key, entry] of this.#entries) if (entry.upstream === upstream) this.#entries.delete(key);
  }

  /** Forgets everything (tests that empty D1 under a shared isolate). */
  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** The isolate's cache, which lookups (connection-auth.ts) and every write (connection-store.ts) share. */
export const connectionCache = new ConnectionCache();
