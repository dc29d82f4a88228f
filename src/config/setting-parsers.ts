/**
 * Parsers of one [vars] setting each: Workers delivers every var as a string, and an unset or
 * blank one takes the default. Plain functions, not zod schemas: the Worker entry checks the
 * configuration at start-up, which every cold isolate pays (issue 33), and building a zod schema
 * per setting there cost more than the check itself. The messages are the ones the zod schema
 * gave (its own for a var that is not a string), so a deploy fails with the same words.
 */

/** Why a setting's value is refused; config-schema.ts reports it after the key's name. */
export class Refusal {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/** A setting's parser: the value it reads, or the Refusal of it. */
export type Setting<T> = (value: unknown) => T | Refusal;

/** zod's name for a value's type in its "expected string" message (a [vars] value may be any JSON). */
function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && !Number.isFinite(value)) return Number.isNaN(value) ? "NaN" : String(value);
  return typeof value;
}

/** Any string, or unset. */
export const optionalString: Setting<string | undefined> = (value) =>
  value === undefined || typeof value === "string" ? value : new Refusal(`Invalid input: expected string, received ${typeName(value)}`);

/** `setting`'s value passed through `then` (which may refuse it); a refusal of `setting` stands. */
export function andThen<T, U>(setting: Setting<T>, then: (value: T) => U | Refusal): Setting<U> {
  return (raw) => {
    const value = setting(raw);
    return value instanceof Refusal ? value : then(value);
  };
}

const numberSetting = (fallback: number, min: number, max: number, whole: boolean): Setting<number> =>
  andThen(optionalString, (value) => {
    if (value === undefined || value.trim() === "") return fallback;
    const n = Number(value);
    if (!(whole ? Number.isInteger(n) : Number.isFinite(n)) || n < min || n > max) {
      return new Refusal(`must be a ${whole ? "whole number" : "number"} from ${min} to ${max}, got ${JSON.stringify(value)}`);
    }
    return n;
  });

/** A whole number from `min` to `max`; `fallback` when unset. */
export const wholeNumber = (fallback: number, min: number, max: number) => numberSetting(fallback, min, max, true);
// A growth factor needs fractions (the default is 1.5).
export const decimal = (fallback: number, min: number, max: number) => numberSetting(fallback, min, max, false);

/** "true" or "false"; `fallback` when unset. */
export const flag = (fallback: boolean): Setting<boolean> =>
  andThen(optionalString, (value) => {
    if (value === undefined || value.trim() === "") return fallback;
    if (value === "true" || value === "false") return value === "true";
    return new Refusal(`must be "true" or "false", got ${JSON.stringify(value)}`);
  });

/** A comma-separated list; blanks and empty entries dropped. */
export const list = (): Setting<string[]> =>
  andThen(optionalString, (value) =>
    (value ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  );

/** One of `values`, blank or unset meaning none; zod's enum message otherwise. */
export function oneOf<const T extends string>(values: readonly T[]): Setting<T | undefined> {
  return (value) => {
    if (value === undefined || (typeof value === "string" && value.trim() === "")) return undefined;
    if (values.includes(value as T)) return value as T;
    return new Refusal(`Invalid option: expected one of ${values.map((v) => JSON.stringify(v)).join("|")}`);
  };
}
