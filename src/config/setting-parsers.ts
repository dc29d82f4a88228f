/**
 * Parsers of one [vars] setting each: Workers delivers every var as a string, and an unset or
 * blank one takes the default.
 */
import { z } from "zod";

/**
 * What every setting starts from. One instance serves them all (a zod schema never changes once
 * built): the Worker entry checks the configuration at start-up (issue 33), and each setting
 * building its own would double the schemas built there.
 */
const optionalString = z.string().optional();

const numberSetting = (fallback: number, min: number, max: number, whole: boolean) =>
  optionalString.transform((value, ctx) => {
    if (value === undefined || value.trim() === "") return fallback;
    const n = Number(value);
    if (!(whole ? Number.isInteger(n) : Number.isFinite(n)) || n < min || n > max) {
      ctx.addIssue({ code: "custom", message: `must be a ${whole ? "whole number" : "number"} from ${min} to ${max}, got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    return n;
  });

/** A whole number from `min` to `max`; `fallback` when unset. */
export const wholeNumber = (fallback: number, min: number, max: number) => numberSetting(fallback, min, max, true);
// A growth factor needs fractions (the default is 1.5).
export const decimal = (fallback: number, min: number, max: number) => numberSetting(fallback, min, max, false);

/** "true" or "false"; `fallback` when unset. */
export const flag = (fallback: boolean) =>
  optionalString.transform((value, ctx) => {
    if (value === undefined || value.trim() === "") return fallback;
    if (value === "true" || value === "false") return value === "true";
    ctx.addIssue({ code: "custom", message: `must be "true" or "false", got ${JSON.stringify(value)}` });
    return z.NEVER;
  });

/** A comma-separated list; blanks and empty entries dropped. */
export const list = () =>
  optionalString.transform((value) =>
    (value ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  );
