/**
 * A value built at its first use and kept, for module-level zod schemas: a Worker evaluates every
 * module it imports at start-up, which each cold isolate pays (issue 33), and most schemas serve
 * only a route, a config var or a stored record that many isolates never meet.
 */

/**
 * Returns a function that calls `build` the first time and hands back that value from then on.
 *
 * @example
 * ```ts
 * export const serverSchema = once(() => z.strictObject({ name: z.string() }));
 * serverSchema().parse(input);
 * ```
 */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return function builtOnce(): T {
    built ??= { value: build() };
    return built.value;
  };
}
