/**
 * Deterministic bench data: mixed-length text lines (short log lines, long
 * JSON-ish lines, a few over the 8 KiB redactor cut and the 64 KiB event cut),
 * with multi-byte characters, and nothing that looks like a secret, so that
 * bytes in must equal bytes out exactly.
 */

/** A small seeded PRNG (mulberry32): the same seed gives the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Lower-case words and punctuation only: no redaction rule can match them. */
const WORDS = [
  "the",
  "agent",
  "reads",
  "file",
  "src/main.ts",
  "line",
  "42",
  "ok",
  "test",
  "passed",
  "failed",
  "build",
  "step",
  '{"type":"delta","text":"hi"}',
  "compiling",
  "module",
  "café",
  "naïve",
  "→",
  "日本語",
  "🙂",
  "—",
  "résumé",
  "0.25s",
  "done.",
  "(cached)",
  "warning:",
  "1234567",
  "x",
  "and",
];

/** A line of about `length` UTF-16 units, without its newline. */
function line(random: () => number, length: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const word = WORDS[Math.floor(random() * WORDS.length)];
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(" ");
}

/** A line length drawn from the mix: mostly short, some long, a few very long. */
function lineLength(random: () => number): number {
  const pick = random();
  if (pick < 0.03) return 0;
  if (pick < 0.70) return 10 + Math.floor(random() * 110);
  if (pick < 0.90) return 120 + Math.floor(random() * 880);
  if (pick < 0.98) return 1000 + Math.floor(random() * 7000);
  if (pick < 0.995) return 8000 + Math.floor(random() * 12000);
  return 20000 + Math.floor(random() * 50000);
}

/**
 * Exactly `totalBytes` bytes of UTF-8 text in mixed-length lines, ending with
 * a newline (the tail is ASCII, so no character is cut).
 */
export function mixedLines(totalBytes: number, seed = 1): Uint8Array {
  const random = seededRandom(seed);
  const out = new Uint8Array(totalBytes);
  const encoder = new TextEncoder();
  let offset = 0;
  const reserve = 256 * 1024;
  while (totalBytes - offset > reserve) {
    const lines: string[] = [];
    let chars = 0;
    while (chars < 64 * 1024) {
      const text = line(random, lineLength(random));
      lines.push(text);
      chars += text.length + 1;
    }
    const { written } = encoder.encodeInto(
      lines.join("\n") + "\n",
      out.subarray(offset, totalBytes - reserve / 2),
    );
    offset += written;
    // encodeInto never splits a character, but it may stop inside a line: end that line here.
    if (out[offset - 1] !== 10) out[offset++] = 10;
  }
  const filler = encoder.encode("tail line of ascii filler text\n");
  while (totalBytes - offset > filler.length) {
    out.set(filler, offset);
    offset += filler.length;
  }
  out.fill(0x2e, offset, totalBytes - 1);
  out[totalBytes - 1] = 10;
  return out;
}

/**
 * `xxd -p` of `totalBytes / 2` seeded random bytes (issue 26's workload):
 * lines of 60 hex digits and a newline, the last one shorter. About
 * `totalBytes` bytes: a build's or a dump's long run of lines.
 */
export function hexLines(totalBytes: number, seed = 26): Uint8Array {
  const random = seededRandom(seed);
  const digits = new TextEncoder().encode("0123456789abcdef");
  const lineBytes = 30;
  const sourceBytes = Math.floor(totalBytes / 2);
  const out = new Uint8Array(sourceBytes * 2 + Math.ceil(sourceBytes / lineBytes));
  let offset = 0;
  for (let i = 0; i < sourceBytes; i++) {
    const byte = Math.floor(random() * 256);
    out[offset++] = digits[byte >> 4];
    out[offset++] = digits[byte & 15];
    if (i % lineBytes === lineBytes - 1 || i === sourceBytes - 1) out[offset++] = 10;
  }
  return out.subarray(0, offset);
}

/** `count` lines of 20–300 characters, for seeding the store. */
export function shortLines(count: number, seed = 2): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => line(random, 20 + Math.floor(random() * 280)));
}
