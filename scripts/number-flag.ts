/** Numeric command-line flags of the scripts (`npm run bench -- --rounds=7`, say). */

/**
 * The value of `--name=<number>` in `argv`, undefined when absent; anything but a positive
 * number is an error naming the flag.
 *
 * @example const rounds = numberFlag("rounds"); // `--rounds=7` → 7
 */
export function numberFlag(name: string, argv: readonly string[] = process.argv): number | undefined {
  const value = argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!(parsed > 0)) throw new Error(`--${name} takes a positive number, not ${JSON.stringify(value)}`);
  return parsed;
}
