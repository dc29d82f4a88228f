/**
 * Parsers of one [vars] setting each: Workers delivers every var as a string, and an unset or
 * blank one takes the default.
 */
import { z } from "zod";

const numberSetting = (fallback: number, min: number, max: number, whole: boolean) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
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
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      if (value === "true" || value === "false") return value === "true";
      ctx.addIssue({ code: "custom", message: `must be "true" or "false", got ${JSON.stringify(value)}` });
      return z.NEVER;
    });

/** A comma-separated list; blanks and empty entries dropped. */
export const list = () =>
  z
    .string()
    .optional()
    .transform((value) =>
      (value ?? "")
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== ""),
    );
