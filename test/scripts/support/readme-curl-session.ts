/**
 * The README's "A curl session" as one bash script: its ```sh blocks in order, pointed at
 * `host` instead of localhost:8787, stopping at the first command that fails or is refused
 * (each curl answers one line of JSON).
 */
const SECTION = "## A curl session";

/** The script for `readme`'s curl session; throws when the section or its blocks are gone. */
export function readmeCurlSession(readme: string, host: string): string {
  const start = readme.indexOf(`\n${SECTION}\n`);
  if (start === -1) throw new Error(`README.md has no "${SECTION}" section`);
  const end = readme.indexOf("\n## ", start + SECTION.length + 2);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  if (blocks.length === 0) throw new Error(`README.md's "${SECTION}" has no sh block`);
  return [
    "set -euo pipefail",
    // --fail-with-body: a refused request fails the session; echo: one answer per line.
    'curl() { command curl --fail-with-body "$@"; echo; }',
    ...blocks.map((block) => block.replaceAll("localhost:8787", host)),
  ].join("\n");
}
