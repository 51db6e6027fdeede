/**
 * Identifiers (D4): a prefix plus a ULID, so ids sort by creation time.
 * Monotonic within one millisecond, like the ULID spec's monotonic factory.
 */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

let lastTime = -1;
let lastRandom: number[] = [];

/** A new ULID for time `nowMs`. */
export function ulid(nowMs: number): string {
  if (nowMs <= lastTime) {
    increment(lastRandom);
  } else {
    lastTime = nowMs;
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    lastRandom = Array.from(bytes, (b) => b & 31);
  }
  let time = "";
  let t = lastTime;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + lastRandom.map((d) => ALPHABET[d]).join("");
}

function increment(digits: number[]): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i] < 31) {
      digits[i]++;
      return;
    }
    digits[i] = 0;
  }
}

/**
 * `ses_…`, `evt_…`, `run_…`, `apr_…` (approval rule, D28), `lnd_…` (land queue
 * item, D34), `dev_…` (device, D30) ids (D4).
 */
export function newId(
  prefix: "ses" | "evt" | "run" | "apr" | "lnd" | "dev",
  nowMs: number,
): string {
  return `${prefix}_${ulid(nowMs)}`;
}
