/**
 * An isolate-local cache of successful key lookups, so a busy agent costs one D1 query per
 * isolate per TTL instead of one per request.
 *
 * The trade-off, accepted: a key revoked through another isolate keeps working in this one for
 * at most `ttlMs` (10 s by default) after its entry was filled. The isolate that serves the
 * DELETE drops its own entry at once. Only successes are cached: an unknown or revoked key is
 * looked up every time, so a cache can never make a key work that D1 refuses.
 */
import type { Principal } from "./principal.ts";

/** How long a looked-up key is trusted without asking D1 again: the revocation bound. */
export const KEY_CACHE_TTL_MS = 10_000;

/** Entries kept at most; the oldest go first, so a flood of distinct keys cannot grow memory. */
const MAX_ENTRIES = 10_000;

interface Entry {
  principal: Principal;
  expiresAt: number;
}

export interface KeyCacheOptions {
  ttlMs?: number;
  /** The clock, replaceable in tests. */
  now?: () => number;
}

/** Principals by key digest, each trusted for `ttlMs`. */
export class KeyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  // The clock is read through Date at each call, not captured: a test's fake Date reaches it too.
  constructor({ ttlMs = KEY_CACHE_TTL_MS, now = () => Date.now() }: KeyCacheOptions = {}) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** The principal for a digest, if it was looked up less than `ttlMs` ago. */
  get(keyHash: string): Principal | undefined {
    const entry = this.#entries.get(keyHash);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(keyHash);
      return undefined;
    }
    return entry.principal;
  }

  /** `notAfter` (epoch ms) caps the entry for a credential that expires sooner than `ttlMs`: an OAuth access token. */
  set(keyHash: string, principal: Principal, notAfter = Number.POSITIVE_INFINITY): void {
    this.#entries.delete(keyHash);
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(keyHash, { principal, expiresAt: Math.min(this.#now() + this.#ttlMs, notAfter) });
  }

  /** Drops every entry for a key id (a revoked key must stop working here at once). */
  forgetKeyId(keyId: string): void {
    for (const [hash, entry] of this.#entries) {
      if (entry.principal.keyId === keyId) this.#entries.delete(hash);
    }
  }
}

/** The cache `authenticate()` and key revocation share by default. */
export const keyCache = new KeyCache();
