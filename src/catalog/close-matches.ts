/**
 * Close matches for an unknown tool name, so the model can correct a typo in one step instead
 * of guessing (what the agent loop of the original printed as "Available tools: ...").
 */

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

const MAX_COMPARED_CHARS = 128;

/** Up to `limit` names close to `name`: same letters ignoring case and separators, a shared stem, or a few edits away. */
export function closeMatches(name: string, candidates: readonly string[], limit = 3): string[] {
  const normal = (s: string): string => s.toLowerCase().replace(/[-_]/g, "");
  const target = normal(name);
  // Edit distance costs name length x candidate length per candidate: a name longer than any
  // valid one (64) gets no suggestions rather than a quadratic bill.
  if (target.length === 0 || target.length > MAX_COMPARED_CHARS) return [];
  const budget = Math.max(2, Math.floor(target.length / 3));
  const scored: [number, string][] = [];
  for (const candidate of candidates) {
    const other = normal(candidate);
    let score = editDistance(target, other);
    if (score > budget && (other.includes(target) || target.includes(other)) && Math.min(other.length, target.length) >= 3) {
      score = budget;
    }
    if (score <= budget) scored.push([score, candidate]);
  }
  scored.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
  return scored.slice(0, limit).map(([, candidate]) => candidate);
}
