/**
 * Secret redaction for stored output and input (D9). Well-known secret shapes become
 * `[REDACTED:<kind>]`; prefixes that say what the secret was (`OPENAI_API_KEY=`, `Bearer `) stay.
 *
 * Every shape except a private-key block lies within one line, so the stream redactor can emit
 * complete lines. Deliberate choices against false positives on ordinary text:
 * - token shapes must start a token: the "sk-" in "task-force" is not a key;
 * - OpenAI keys and bare `Bearer` tokens need a digit among their first 256 characters, and
 *   bare `Bearer` tokens 16 characters, so "Bearer of bad news" and "sk-my-feature-x" stay;
 * - assignments need an UPPER_SNAKE name ending in a secret word and a non-empty value, so
 *   `TOKEN=`, `MAX_TOKENS=4096` and code such as `const token = getToken()` stay; lower-case
 *   names (`password: x`, `?access_token=x`) are not assignments here. An unquoted value runs
 *   to the next space or quote, so `A_TOKEN=x;` loses its `;` too.
 *
 * Every pattern is linear: runs are anchored by a lookbehind to the start of a token and
 * every other repetition, lookaheads included, is bounded. Whether a shape matches is thus
 * decided within CUT_LINE_TAIL_CHARS of its start, or by a run that is still going; the stream
 * redactor relies on that to cut long lines.
 */

/** Longest private-key body, in characters, held to find its END line. */
export const MAX_PRIVATE_KEY_CHARS = 16384;

/** Longest partial line held by a stream redactor before it cuts the line. */
export const MAX_HELD_LINE_CHARS = 8192;

/** Characters kept back when a long line is cut, enough for any bounded secret shape. */
const CUT_LINE_TAIL_CHARS = 1024;

/** Upper bound on the length of a BEGIN or END line of a private key. */
const KEY_MARKER_CHARS = 80;

/** Growth of the held text before a failed cut of a long line is tried again. */
const CUT_RETRY_CHARS = 1024;

interface Rule {
  kind: string;
  /** Text kept before the redaction marker. */
  keep?: string;
  secret: string;
}

const raw = String.raw;
const TOKEN_START = raw`(?<![A-Za-z0-9_-])`;
const KEY_LABEL = raw`[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`;
const KEY_END = `-----END${KEY_LABEL}`;
const KEY_BODY = raw`[\s\S]{0,${MAX_PRIVATE_KEY_CHARS}}`;
/** A block ends at its END line, else at the end of the text, else after the longest body. */
const KEY_BLOCK =
  raw`-----BEGIN${KEY_LABEL}(?:${KEY_BODY}?${KEY_END}|${KEY_BODY}$|[\s\S]{${MAX_PRIVATE_KEY_CHARS}})`;
const AUTHORIZATION = raw`${TOKEN_START}[Aa]uthorization\\?["']?[ \t]{0,8}[:=][ \t]{0,8}\\?["']?`;
const VALUE_END = raw`\s"'\\` + "`";
/** `=` takes its value at once or with spaces on both sides, so a bare `TOKEN= x` stays. */
const ASSIGN = raw`(?:[ \t]{0,8}:=?[ \t]{0,8}|=|[ \t]{1,8}=[ \t]{1,8})`;
const SECRET_NAME =
  raw`(?<![A-Za-z0-9_])[A-Z0-9_]{0,64}?(?:API_?KEY|ACCESS_KEY|PRIVATE_KEY|SECRET(?:_KEY)?|TOKEN|PASSWORD|PASSWD|PASSPHRASE)`;

/** Ordered: at one position the first rule wins; otherwise the leftmost match does. */
const RULES: Rule[] = [
  { kind: "private_key", secret: KEY_BLOCK },
  { kind: "anthropic", secret: raw`${TOKEN_START}sk-ant-[A-Za-z0-9_-]{20,}` },
  { kind: "openai", secret: raw`${TOKEN_START}sk-(?=[A-Za-z_-]{0,255}[0-9])[A-Za-z0-9_-]{20,}` },
  { kind: "aws", secret: raw`(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])` },
  {
    kind: "github",
    secret: raw`${TOKEN_START}(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`,
  },
  {
    kind: "slack",
    secret: raw`${TOKEN_START}(?:xox[abprs]-|xapp-)[A-Za-z0-9-]{10,}` +
      raw`|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,}`,
  },
  { kind: "google", secret: raw`${TOKEN_START}AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])` },
  {
    kind: "stripe",
    secret: raw`${TOKEN_START}(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})`,
  },
  { kind: "bearer", keep: raw`${AUTHORIZATION}[Bb]earer[ \t]{1,8}`, secret: `[^${VALUE_END}]+` },
  {
    kind: "authorization",
    keep: raw`${AUTHORIZATION}(?:[Bb]asic|[Tt]oken|[Dd]igest)[ \t]{1,8}`,
    secret: `[^${VALUE_END}]+`,
  },
  {
    kind: "bearer",
    keep: raw`${TOKEN_START}[Bb]earer[ \t]{1,8}`,
    secret: raw`(?=[A-Za-z._~+/=-]{0,255}[0-9])[A-Za-z0-9._~+/=-]{16,}`,
  },
  {
    kind: "assignment",
    keep: raw`${SECRET_NAME}\\?["']?${ASSIGN}`,
    secret: raw`"[^"\n]{1,256}"|'[^'\n]{1,256}'|\\?["']?` + `[^${VALUE_END}=][^${VALUE_END}]*`,
  },
];

const PATTERN = new RegExp(
  RULES.map((rule, index) => {
    const keep = rule.keep === undefined ? "" : `(?<k${index}>${rule.keep})`;
    return `(?<r${index}>${keep}(?:${rule.secret}))`;
  }).join("|"),
  "g",
);
const KEY_END_AT_END = new RegExp(`${KEY_END}$`);
const OPENING_QUOTE = /^\\?["']?/;
/** A long line is never cut right after one of these: a secret shape may run across it. */
const TOKEN_CHAR = /[A-Za-z0-9_.~+/=-]/;

type Groups = Record<string, string | undefined>;

function ruleIndex(groups: Groups): number {
  return RULES.findIndex((_, index) => groups[`r${index}`] !== undefined);
}

function replacement(match: string, groups: Groups): string {
  const index = ruleIndex(groups);
  const keep = groups[`k${index}`] ?? "";
  const secret = match.slice(keep.length);
  const open = OPENING_QUOTE.exec(secret)?.[0] ?? "";
  const quote = open.slice(-1);
  const close = quote !== "" && secret.length > open.length && secret.endsWith(quote) ? quote : "";
  return `${keep}${open}[REDACTED:${RULES[index].kind}]${close}`;
}

/** Replaces well-known secret shapes in `text` with `[REDACTED:<kind>]`. */
export function redactText(text: string): string {
  return text.replace(PATTERN, (match: string, ...rest: unknown[]) => {
    return replacement(match, rest.at(-1) as Groups);
  });
}

interface Span {
  start: number;
  end: number;
  /** A private-key block whose extent depends on text that has not arrived yet. */
  open: boolean;
}

function secretSpans(text: string): Span[] {
  return Array.from(text.matchAll(PATTERN), (match) => {
    const start = match.index;
    const end = start + match[0].length;
    const open = ruleIndex(match.groups ?? {}) === 0 && !KEY_END_AT_END.test(match[0]) &&
      text.length - end < KEY_MARKER_CHARS;
    return { start, end, open };
  });
}

function lineStartBefore(text: string, index: number): number {
  return index <= 0 ? 0 : text.lastIndexOf("\n", index - 1) + 1;
}

/** The last line start at or before `limit` that no secret spans. */
function lineCut(text: string, limit: number, spans: Span[]): number {
  let cut = lineStartBefore(text, limit);
  for (let index = spans.length - 1; index >= 0 && cut > 0; index--) {
    const span = spans[index];
    if (span.start >= cut) continue;
    if (span.end <= cut) break;
    cut = lineStartBefore(text, span.start);
  }
  return cut;
}

function splitsPair(text: string, cut: number): boolean {
  const code = text.charCodeAt(cut - 1);
  return code >= 0xd800 && code <= 0xdbff;
}

/** A cut of a long line in `(from, to]`: after a non-token character outside every secret. */
function longLineCut(text: string, from: number, to: number, spans: Span[]): number {
  if (to <= from) return from;
  let index = spans.length - 1;
  for (let cut = to; cut > from; cut--) {
    while (index >= 0 && spans[index].start >= cut) index--;
    const inSecret = index >= 0 && spans[index].end > cut;
    if (!inSecret && !TOKEN_CHAR.test(text[cut - 1]) && !splitsPair(text, cut)) return cut;
  }
  // No safe place: cut anyway so memory stays bounded, but not inside a secret or a character.
  const around = spans.find((span) => span.start < to && to < span.end);
  if (around !== undefined) return around.start > from ? around.start : around.end;
  return splitsPair(text, to) ? to - 1 : to;
}

/**
 * Where to cut `text` before `limit` so that its last `words` whitespace-separated words stay
 * held (a secret still arriving, with a prefix such as `Bearer` or `NAME=`), holding at most
 * CUT_LINE_TAIL_CHARS.
 */
function wordCut(text: string, limit: number, words: number): number {
  let cut = limit;
  for (let word = 0; word < words; word++) {
    while (cut > 0 && /\s/.test(text[cut - 1])) cut--;
    while (cut > 0 && !/\s/.test(text[cut - 1])) cut--;
  }
  return Math.max(cut, limit - CUT_LINE_TAIL_CHARS);
}

/**
 * Redacts one output stream chunk by chunk. `push()` returns what is safe to emit now and holds
 * the partial last line, so a secret split across reads is still redacted; the concatenation of
 * every `push()` and the final `flush()` equals `redactText()` of the whole stream. A partial
 * line longer than MAX_HELD_LINE_CHARS is cut after a non-token character outside any secret,
 * which keeps that equality; a line with no such place is cut anyway, so memory stays bounded.
 * An open private-key block is held until its END line or MAX_PRIVATE_KEY_CHARS.
 */
export class StreamRedactor {
  #held = "";
  /** Start in `#held` of a private-key block still waiting for its END line. */
  #openKeyAt: number | null = null;
  #nextLongLineCutAt = MAX_HELD_LINE_CHARS + 1;

  /** Adds a chunk and returns the redacted text that no later chunk can change. */
  push(chunk: string): string {
    const heldBefore = this.#held.length;
    this.#held += chunk;
    if (!this.#mayEmit(chunk, heldBefore)) return "";
    const spans = secretSpans(this.#held);
    const openKey = spans.find((span) => span.open);
    const limit = openKey?.start ?? this.#held.length;
    let cut = lineCut(this.#held, limit, spans);
    if (this.#held.length - cut > MAX_HELD_LINE_CHARS) {
      const to = Math.min(limit, this.#held.length - CUT_LINE_TAIL_CHARS);
      cut = Math.max(cut, longLineCut(this.#held, cut, to, spans));
    }
    return this.#emit(cut, openKey);
  }

  /** Number of characters held back, waiting for the rest of their line. */
  pending(): number {
    return this.#held.length;
  }

  /**
   * Emits the held partial line now, for interactive output shown on a timer. Trade-off: a
   * secret still arriving is split and may leak in part; an open private-key block stays held.
   */
  flushPartial({ holdLastWords = 0 }: { holdLastWords?: number } = {}): string {
    const openKey = secretSpans(this.#held).find((span) => span.open);
    const limit = openKey?.start ?? this.#held.length;
    return this.#emit(wordCut(this.#held, limit, holdLastWords), openKey);
  }

  /** Returns everything still held, redacted, at the end of the stream. */
  flush(): string {
    const rest = redactText(this.#held);
    this.#held = "";
    this.#openKeyAt = null;
    this.#nextLongLineCutAt = MAX_HELD_LINE_CHARS + 1;
    return rest;
  }

  /** Whether the new chunk can change what is emittable; saves rescanning on every small read. */
  #mayEmit(chunk: string, heldBefore: number): boolean {
    if (this.#openKeyAt === null) {
      return chunk.includes("\n") || this.#held.length >= this.#nextLongLineCutAt;
    }
    const endFrom = Math.max(this.#openKeyAt, heldBefore - KEY_MARKER_CHARS);
    const decidedAt = this.#openKeyAt + MAX_PRIVATE_KEY_CHARS + 2 * KEY_MARKER_CHARS;
    return this.#held.indexOf("-----END", endFrom) !== -1 || this.#held.length >= decidedAt;
  }

  #emit(cut: number, openKey: Span | undefined): string {
    const ready = redactText(this.#held.slice(0, cut));
    this.#held = this.#held.slice(cut);
    this.#openKeyAt = openKey === undefined ? null : openKey.start - cut;
    this.#nextLongLineCutAt = this.#held.length > MAX_HELD_LINE_CHARS
      ? this.#held.length + CUT_RETRY_CHARS
      : MAX_HELD_LINE_CHARS + 1;
    return ready;
  }
}
