/**
 * Whether a file's bytes are text, and its text. A file is binary when its first 8 KiB hold a
 * NUL byte or it is not valid UTF-8: dumping it would give the model noise and cost its context.
 */

export type DecodedFile = { binary: false; text: string } | { binary: true; kind: string };

const SAMPLE_BYTES = 8192;

/** Magic numbers of the binary formats an agent's workspace most often holds. */
const MAGIC: readonly (readonly [string, readonly number[]])[] = [
  ["PNG image", [0x89, 0x50, 0x4e, 0x47]],
  ["JPEG image", [0xff, 0xd8, 0xff]],
  ["GIF image", [0x47, 0x49, 0x46, 0x38]],
  ["PDF document", [0x25, 0x50, 0x44, 0x46]],
  ["ZIP archive", [0x50, 0x4b, 0x03, 0x04]],
  ["gzip archive", [0x1f, 0x8b]],
  ["ELF executable", [0x7f, 0x45, 0x4c, 0x46]],
  ["WebAssembly module", [0x00, 0x61, 0x73, 0x6d]],
  ["SQLite database", [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65]],
];

function kindOf(bytes: Uint8Array): string {
  const found = MAGIC.find(([, magic]) => magic.every((b, i) => bytes[i] === b));
  return found === undefined ? "data" : found[0];
}

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The file's text (a UTF-8 BOM dropped), or that it is binary and what it looks like. */
export function decodeFile(bytes: Uint8Array): DecodedFile {
  if (bytes.subarray(0, SAMPLE_BYTES).includes(0)) return { binary: true, kind: kindOf(bytes) };
  try {
    return { binary: false, text: strict.decode(bytes) };
  } catch {
    return { binary: true, kind: kindOf(bytes) };
  }
}
