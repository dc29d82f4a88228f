/**
 * A markdown file's curl session as one bash script: the ```sh blocks of one `## ` section in
 * order, pointed at `host` instead of localhost:8787, stopping at the first command that fails
 * or is refused (each curl answers one line of JSON).
 */

/** The script for `section`'s curl session in `markdown`; throws when the section or its blocks are gone. */
export function curlSession(markdown: string, section: string, host: string): string {
  const heading = `## ${section}`;
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`no "${heading}" section`);
  const end = markdown.indexOf("\n## ", start + heading.length + 2);
  const text = markdown.slice(start, end === -1 ? undefined : end);
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  if (blocks.length === 0) throw new Error(`"${heading}" has no sh block`);
  return [
    "set -euo pipefail",
    // --fail-with-body: a refused request fails the session; echo: one answer per line.
    'curl() { command curl --fail-with-body "$@"; echo; }',
    ...blocks.map((block) => block.replaceAll("localhost:8787", host)),
  ].join("\n");
}
