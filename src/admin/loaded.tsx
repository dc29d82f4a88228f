/** @jsxImportSource hono/jsx */
/**
 * A page's reads, each allowed to fail on its own: a store that is down (D1, KV, a Durable
 * Object) turns its section into a clear notice, and the rest of the page still shows.
 */
import type { Child, FC } from "hono/jsx";

export type Loaded<T> = { ok: true; value: T } | { ok: false; store: string };

/** Runs one read; a failure is logged and becomes `{ ok: false }` naming the store. */
export async function load<T>(store: string, read: () => Promise<T>): Promise<Loaded<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    console.error(`admin console: ${store} unavailable`, error);
    return { ok: false, store };
  }
}

/** The notice a section shows in place of what it could not read. */
export const Unavailable: FC<{ store: string }> = ({ store }) => (
  <p class="notice error" role="alert">
    {`${store} could not be read just now, so this part is missing; the failure was logged. Reload in a moment.`}
  </p>
);

/** Renders `children(value)` when the read worked, the notice otherwise. */
export function whenLoaded<T>(loaded: Loaded<T>, children: (value: T) => Child): Child {
  return loaded.ok ? children(loaded.value) : <Unavailable store={loaded.store} />;
}
