/**
 * The content half of search_files: fetches files a few at a time, in path order, and tests
 * each line with a linear-time RE2 pattern, stopping at the match cap, the work budget, the
 * time budget or the call's signal, whichever comes first.
 *
 * Why a work budget and not only a clock: workerd does not advance Date.now() during
 * synchronous work (a Spectre mitigation; time moves on only at I/O), and a timer or an abort
 * signal cannot fire inside a loop that never yields. So inside a file the bound is the number
 * of characters tested, which is a bound on CPU because the engine is linear in its input; the
 * clock and the signal are checked at each file, where the scan awaits R2 anyway.
 */
import type { RE2JS } from "re2js";
import type { ListedFile } from "./list-paths.ts";
import { SLICE_UNITS } from "./pacer.ts";
import { decodeFile } from "./text-file.ts";
import { MAX_FILE_BYTES, type Workspace } from "./workspace.ts";

/**
 * Characters of one line tested; the rest of a longer line (minified code) is not searched. One
 * re2js call cannot be sliced, and on a pathological pattern (`(x|x)*y`) a 100,000-character
 * line held the isolate for about 250 ms in workerd; 10,000 keeps one call near 25 ms.
 */
export const MAX_LINE_CHARS = 10_000;
/** Characters of a matching line shown. */
const SHOWN_CHARS = 500;
/** Files fetched ahead of the one being scanned. */
const PREFETCH = 8;

export interface LineMatch {
  path: string;
  line: number;
  content: string;
}

/**
 * A pattern's whole-file prefilter: the same pattern with `^`/`$` at every line, tested once on
 * a file's text so that files without a match (most of them) are never split into lines, which
 * is many times faster than a call per line. It may find a match that spans lines where no
 * single line has one (`a\sb`); the per-line scan stays the judge, so that costs time, never a
 * result. Patterns whose meaning differs on a whole text in the other direction (the absolute
 * anchors `\A` `\z`, or flags switched off inline, such as `(?-m)`) get no prefilter.
 */
export function filePrefilter(re2: typeof RE2JS, pattern: string): RE2JS | undefined {
  if (/\\[Az]|\(\?[a-zA-Z]*-/.test(pattern)) return undefined;
  return re2.compile(pattern, re2.MULTILINE);
}

export interface ScanLimits {
  /**
   * `content` keeps matching lines, `files_only` stops at a file's first match, `count` counts
   * every match and keeps no lines.
   */
  mode: "content" | "files_only" | "count";
  /** Stop once this many matching lines (files, with `files_only`) are found; not in `count`. */
  stopAfter: number;
  /** Characters tested at most, over all files. */
  maxChars: number;
  /** filePrefilter's pattern, when the search has one. */
  prefilter?: RE2JS;
  deadlineAt: number;
  signal: AbortSignal;
}

export interface ScanResult {
  matches: LineMatch[];
  /** Matching lines per file, in path order. */
  counts: Map<string, number>;
  /** Why the scan ended early: the match cap, the time budget (or signal), or the work budget. */
  stoppedBy: "limit" | "search_timeout" | "work_budget" | undefined;
  filesScanned: number;
  skippedBinary: string[];
  skippedTooLarge: string[];
}

/** A file's text, why it was skipped, or undefined when it went away since the listing. */
type Fetched = { text: string } | { skipped: "binary" | "too_large" } | undefined;

async function fetchText(ws: Workspace, file: ListedFile): Promise<Fetched> {
  if (file.size > MAX_FILE_BYTES) return { skipped: "too_large" };
  const object = await ws.bucket.get(ws.prefix + file.path);
  if (object === null) return undefined;
  const decoded = decodeFile(new Uint8Array(await object.arrayBuffer()));
  return decoded.binary ? { skipped: "binary" } : { text: decoded.text };
}

/** Characters the prefilter tests in one call: re2js tests about 10 MB/s at worst, so a few ms. */
const PREFILTER_CHUNK = 64 * 1024;

/**
 * The text's chunks for the prefilter, cut at line ends so that every line's tested part lies
 * in one chunk; a line longer than MAX_LINE_CHARS is a chunk of its own, cut where the line scan
 * cuts it, so `x$` means the same to both. `\r\n` becomes `\n`: per line `x$` matches "x\r\n".
 */
function* prefilterChunks(text: string): Generator<string> {
  const endOf = (from: number) => {
    const nl = text.indexOf("\n", from);
    return nl === -1 ? text.length : nl;
  };
  for (let from = 0; from < text.length; ) {
    const first = endOf(from);
    if (first - from > MAX_LINE_CHARS) {
      yield text.slice(from, from + MAX_LINE_CHARS);
      from = first + 1;
      continue;
    }
    let to = first + 1;
    while (to < text.length && to - from < PREFILTER_CHUNK) {
      const end = endOf(to);
      if (end - to > MAX_LINE_CHARS) break;
      to = end + 1;
    }
    const chunk = text.slice(from, to);
    yield chunk.includes("\r") ? chunk.replace(/\r\n/g, "\n") : chunk;
    from = to;
  }
}

/** The lines of a text, as splitLines has them, one at a time (a split of 10 MiB of short lines holds the isolate for half a second). */
function* linesOf(text: string): Generator<string> {
  for (let from = 0; from < text.length; ) {
    const nl = text.indexOf("\n", from);
    const end = nl === -1 ? text.length : nl;
    yield text.slice(from, end > from && text.charCodeAt(end - 1) === 13 && nl !== -1 ? end - 1 : end);
    from = end + 1;
  }
}

/** Bytes of files fetched ahead at most: eight 10 MiB files at once would not fit in a Worker's memory. */
const PREFETCH_BYTES = 16 * 1024 * 1024;

/** Searches `files` for lines `re` finds, within `limits`. */
export async function scanContent(ws: Workspace, files: readonly ListedFile[], re: RE2JS, limits: ScanLimits): Promise<ScanResult> {
  const result: ScanResult = { matches: [], counts: new Map(), stoppedBy: undefined, filesScanned: 0, skippedBinary: [], skippedTooLarge: [] };
  const fetches: Promise<Fetched>[] = [];
  const outOfTime = () => Date.now() >= limits.deadlineAt || limits.signal.aborted;
  let found = 0;
  let tested = 0;
  let sinceYield = 0;
  // Inside a file the clock stands still: count the work, and yield once a slice of it is spent.
  const due = (units: number): boolean => (sinceYield += units) >= SLICE_UNITS;
  const pause = async (): Promise<boolean> => {
    sinceYield = 0;
    await scheduler.wait(0);
    if (!outOfTime()) return true;
    result.stoppedBy = "search_timeout";
    return false;
  };
  const fetchedSize = (upTo: number) => files.slice(upTo, fetches.length).reduce((sum, f) => sum + Math.min(f.size, MAX_FILE_BYTES + 1), 0);
  for (let i = 0; i < files.length; i++) {
    while (
      fetches.length < Math.min(files.length, i + PREFETCH) &&
      (fetches.length === i || fetchedSize(i) + (files[fetches.length] as ListedFile).size <= PREFETCH_BYTES)
    ) {
      const fetching = fetchText(ws, files[fetches.length] as ListedFile);
      // One left behind by an early stop must not surface as an unhandled rejection; the one
      // awaited below still throws.
      fetching.catch(() => undefined);
      fetches.push(fetching);
    }
    const file = files[i] as ListedFile;
    const fetched = await fetches[i];
    // Dropped once read, so the prefetch's bytes are only those not yet scanned.
    fetches[i] = Promise.resolve(undefined);
    if (outOfTime()) {
      result.stoppedBy = "search_timeout";
      break;
    }
    if (fetched === undefined) continue;
    if ("skipped" in fetched) {
      (fetched.skipped === "binary" ? result.skippedBinary : result.skippedTooLarge).push(file.path);
      continue;
    }
    result.filesScanned++;
    if (limits.prefilter !== undefined) {
      let hit = false;
      for (const chunk of prefilterChunks(fetched.text)) {
        tested += chunk.length;
        if (tested > limits.maxChars) {
          result.stoppedBy = "work_budget";
          break;
        }
        hit = limits.prefilter.test(chunk);
        if (hit || (due(chunk.length) && !(await pause()))) break;
      }
      if (result.stoppedBy !== undefined) break;
      if (!hit) continue;
    }
    let inFile = 0;
    let n = 0;
    for (const line of linesOf(fetched.text)) {
      n++;
      const probe = line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line;
      tested += probe.length + 1;
      if (tested > limits.maxChars) {
        result.stoppedBy = "work_budget";
        break;
      }
      if (re.test(probe)) {
        inFile++;
        if (limits.mode !== "count") {
          if (limits.mode === "content") {
            result.matches.push({ path: file.path, line: n, content: line.length > SHOWN_CHARS ? `${line.slice(0, SHOWN_CHARS)}... [truncated]` : line });
          }
          found++;
          if (found >= limits.stopAfter) result.stoppedBy = "limit";
          if (limits.mode === "files_only" || result.stoppedBy !== undefined) break;
        }
      }
      if (due(probe.length + 1) && !(await pause())) break;
    }
    if (inFile > 0) result.counts.set(file.path, inFile);
    if (result.stoppedBy !== undefined) break;
  }
  return result;
}
