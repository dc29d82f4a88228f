/** Times as a person reads them on the page: short spans ("4 min") and UTC timestamps. */

/** A span of time in its two largest units, e.g. `45 s`, `3 min 5 s`, `2 h 10 min`. */
export function formatSpan(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d`;
}

/** An instant as `2026-05-01 12:00:00 UTC`: one zone for everyone reading the same decision. */
export function formatInstant(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** The `datetime` attribute of a `<time>` element. */
export const isoOf = (epochMs: number): string => new Date(epochMs).toISOString();
