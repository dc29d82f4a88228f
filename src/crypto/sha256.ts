/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, synchronous.
 *
 * Why not `crypto.subtle.digest`: on workerd each digest is an asynchronous call into the runtime,
 * and for the short texts we hash on every request (an API key, a call's arguments) it measured
 * 8-10 us per digest in a workerd loop and 20-45 us of profile self time per digest under load
 * (scripts/bench/profile.ts); this runs in about 3.5 us in the same loop. Its timing depends only on the input's length,
 * never its bytes (no data-dependent branches or table lookups), so hashing a secret leaks
 * nothing a network observer could use. test/crypto/sha256.test.ts checks it against WebCrypto.
 */
import { HEX_BYTES } from "./encoding.ts";

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
const H0 = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

/**
 * Scratch space, reused: a synchronous function never runs twice at once in an isolate. Int32
 * arrays, not Uint32: V8 keeps int32 values unboxed, while words above 2^31 read from a
 * Uint32Array would be heap numbers (measured: twice as slow).
 */
const W = new Int32Array(64);
const STATE = new Int32Array(8);
/** Inputs that pad to at most this many bytes use a reused buffer instead of a fresh one. */
const SCRATCH_BYTES = 4096;
const scratch = new Uint8Array(SCRATCH_BYTES);
const encoder = new TextEncoder();

/** Runs the compression function over the first `blocks` 64-byte blocks of `padded`, into STATE. */
function compress(padded: Uint8Array, blocks: number): void {
  let h0 = H0[0]!;
  let h1 = H0[1]!;
  let h2 = H0[2]!;
  let h3 = H0[3]!;
  let h4 = H0[4]!;
  let h5 = H0[5]!;
  let h6 = H0[6]!;
  let h7 = H0[7]!;
  for (let block = 0; block < blocks; block++) {
    const offset = block * 64;
    for (let t = 0; t < 16; t++) {
      const i = offset + t * 4;
      W[t] = (padded[i]! << 24) | (padded[i + 1]! << 16) | (padded[i + 2]! << 8) | padded[i + 3]!;
    }
    for (let t = 16; t < 64; t++) {
      const w15 = W[t - 15]!;
      const w2 = W[t - 2]!;
      const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      W[t] = (W[t - 16]! + s0 + W[t - 7]! + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let t = 0; t < 64; t++) {
      const sigma1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const choose = (e & f) ^ (~e & g);
      const t1 = (h + sigma1 + choose + K[t]! + W[t]!) | 0;
      const sigma0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (sigma0 + majority) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  STATE[0] = h0;
  STATE[1] = h1;
  STATE[2] = h2;
  STATE[3] = h3;
  STATE[4] = h4;
  STATE[5] = h5;
  STATE[6] = h6;
  STATE[7] = h7;
}

/** Hashes `data` (a text as its UTF-8 bytes) into STATE. */
function digestInto(data: string | Uint8Array): void {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  const length = bytes.length;
  // The message, a 0x80 byte, zeros, and the bit length in 64 bits, to a multiple of 64 bytes.
  const blocks = Math.ceil((length + 9) / 64);
  const size = blocks * 64;
  const padded = size <= SCRATCH_BYTES ? scratch : new Uint8Array(size);
  padded.set(bytes);
  padded.fill(0, length, size);
  padded[length] = 0x80;
  // The bit length: JavaScript numbers hold it exactly far beyond any input that fits in memory.
  const high = Math.floor(length / 0x20000000);
  const low = (length << 3) >>> 0;
  for (let i = 0; i < 4; i++) {
    padded[size - 8 + i] = (high >>> (24 - 8 * i)) & 0xff;
    padded[size - 4 + i] = (low >>> (24 - 8 * i)) & 0xff;
  }
  compress(padded, blocks);
}

/** Lowercase hex SHA-256 of `data` (a text is hashed as its UTF-8 bytes). */
export function sha256Hex(data: string | Uint8Array): string {
  digestInto(data);
  let hex = "";
  for (let i = 0; i < 8; i++) {
    const word = STATE[i]!;
    hex += HEX_BYTES[word >>> 24]! + HEX_BYTES[(word >>> 16) & 0xff]! + HEX_BYTES[(word >>> 8) & 0xff]! + HEX_BYTES[word & 0xff]!;
  }
  return hex;
}
