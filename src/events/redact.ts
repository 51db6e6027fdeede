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
  /**
   * Literals (a pattern) of which every match of the rule contains one, starting at most
   * LITERAL_REACH characters into the match: text without any of them is not scanned. A
   * lookbehind keeps the common letters of a prefix such as `sk-` out of the scan's first
   * characters, which makes it about twice as fast.
   */
  literal: string;
}

/**
 * Furthest a rule's literal starts into its match: an assignment name of 64 characters, then
 * `PRIVATE_`, then `KEY`.
 */
export const LITERAL_REACH = 72;

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
  { kind: "private_key", secret: KEY_BLOCK, literal: "-----BEGIN" },
  {
    kind: "anthropic",
    secret: raw`${TOKEN_START}sk-ant-[A-Za-z0-9_-]{20,}`,
    literal: raw`(?<=sk)-`,
  },
  {
    kind: "openai",
    secret: raw`${TOKEN_START}sk-(?=[A-Za-z_-]{0,255}[0-9])[A-Za-z0-9_-]{20,}`,
    literal: raw`(?<=sk)-`,
  },
  {
    kind: "aws",
    secret: raw`(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])`,
    literal: "AKIA|ASIA",
  },
  {
    kind: "github",
    secret: raw`${TOKEN_START}(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`,
    literal: raw`(?<=gh[pousr])_|(?<=github)_pat_`,
  },
  {
    kind: "slack",
    secret: raw`${TOKEN_START}(?:xox[abprs]-|xapp-)[A-Za-z0-9-]{10,}` +
      raw`|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,}`,
    literal: raw`(?<=xox[abprs])-|(?<=xapp)-|(?<=hooks)\.slack`,
  },
  {
    kind: "google",
    secret: raw`${TOKEN_START}AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])`,
    literal: "AIza",
  },
  {
    kind: "stripe",
    secret: raw`${TOKEN_START}(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})`,
    literal: raw`(?<=[sr]k)_|(?<=whsec)_`,
  },
  {
    kind: "bearer",
    keep: raw`${AUTHORIZATION}[Bb]earer[ \t]{1,8}`,
    secret: `[^${VALUE_END}]+`,
    literal: "uthorization",
  },
  {
    kind: "authorization",
    keep: raw`${AUTHORIZATION}(?:[Bb]asic|[Tt]oken|[Dd]igest)[ \t]{1,8}`,
    secret: `[^${VALUE_END}]+`,
    literal: "uthorization",
  },
  {
    kind: "bearer",
    keep: raw`${TOKEN_START}[Bb]earer[ \t]{1,8}`,
    secret: raw`(?=[A-Za-z._~+/=-]{0,255}[0-9])[A-Za-z0-9._~+/=-]{16,}`,
    literal: "[Bb]earer",
  },
  {
    kind: "assignment",
    keep: raw`${SECRET_NAME}\\?["']?${ASSIGN}`,
    secret: raw`"[^"\n]{1,256}"|'[^'\n]{1,256}'|\\?["']?` + `[^${VALUE_END}=][^${VALUE_END}]*`,
    literal: "KEY|SECRET|TOKEN|PASS",
  },
];

const PATTERN = new RegExp(
  RULES.map((rule, index) => {
    const keep = rule.keep === undefined ? "" : `(?<k${index}>${rule.keep})`;
    return `(?<r${index}>${keep}(?:${rule.secret}))`;
  }).join("|"),
  "g",
);
/** Every rule's literals: on output without secrets, about five times as fast as PATTERN. */
const LITERALS = new RegExp([...new Set(RULES.map((rule) => rule.literal))].join("|"), "g");
/** The same literals for a yes/no test: no `g`, so no `lastIndex` to reset. */
const ANY_LITERAL = new RegExp(LITERALS.source);
const KEY_END_AT_END = new RegExp(`${KEY_END}$`);
const OPENING_QUOTE = /^\\?["']?/;
/** A long line is never cut right after one of these: a secret shape may run across it. */
const TOKEN_CHAR = /[A-Za-z0-9_.~+/=-]/;

type Groups = Record<string, string | undefined>;

/**
 * Whether `text` holds a literal of any rule; text without one holds no secret (every match
 * holds its rule's literal). The literals are ASCII, which in UTF-8 is never part of another
 * character: tested on UTF-8 bytes read as Latin-1 (one character per byte), the answer is the
 * same as on the decoded text.
 */
export function hasLiteral(text: string): boolean {
  return ANY_LITERAL.test(text);
}

/** TOKEN_CHAR by ASCII byte (1 for a token character). */
const TOKEN_BYTES = Uint8Array.from(
  { length: 0x80 },
  (_, byte) => TOKEN_CHAR.test(String.fromCharCode(byte)) ? 1 : 0,
);

/**
 * Where UTF-8 output without a literal (so without a secret) may be cut: after its last
 * newline, or, in a line longer than MAX_HELD_LINE_CHARS bytes, as `StreamRedactor.push()` cuts
 * one: after the last non-token character at least CUT_LINE_TAIL_CHARS bytes before the end,
 * else at the character boundary there. Counted in bytes, the held tail is at least as long in
 * characters as `push()` needs: a secret starting before the cut would hold a literal within
 * LITERAL_REACH characters, in the held tail, which has none.
 */
export function cleanCut(bytes: Uint8Array): number {
  const lineStart = bytes.lastIndexOf(0x0a) + 1;
  if (bytes.length - lineStart <= MAX_HELD_LINE_CHARS) return lineStart;
  const to = bytes.length - CUT_LINE_TAIL_CHARS;
  for (let cut = to; cut > lineStart; cut--) {
    if (isContinuationByte(bytes[cut])) continue; // Not a character boundary.
    const before = bytes[cut - 1];
    if (before >= 0x80 || TOKEN_BYTES[before] === 0) return cut;
  }
  let cut = to;
  while (cut > lineStart && isContinuationByte(bytes[cut])) cut--;
  return cut;
}

function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function ruleIndex(groups: Groups): number {
  return RULES.findIndex((_, index) => groups[`r${index}`] !== undefined);
}

/**
 * The matches of PATTERN in `text`, the same as a global scan from the start finds, but PATTERN
 * only runs from LITERAL_REACH before the next literal: a match holds its rule's literal within
 * that reach, so none starts earlier. Text without a literal costs one LITERALS scan.
 */
function secretMatches(text: string): RegExpExecArray[] {
  const matches: RegExpExecArray[] = [];
  let from = 0;
  for (;;) {
    LITERALS.lastIndex = from;
    const literal = LITERALS.exec(text);
    if (literal === null) return matches;
    PATTERN.lastIndex = Math.max(from, literal.index - LITERAL_REACH);
    const match = PATTERN.exec(text);
    if (match === null) return matches;
    matches.push(match);
    from = PATTERN.lastIndex;
  }
}

function replacement(match: RegExpExecArray): string {
  const groups = match.groups ?? {};
  const index = ruleIndex(groups);
  const keep = groups[`k${index}`] ?? "";
  const secret = match[0].slice(keep.length);
  const open = OPENING_QUOTE.exec(secret)?.[0] ?? "";
  const quote = open.slice(-1);
  const close = quote !== "" && secret.length > open.length && secret.endsWith(quote) ? quote : "";
  return `${keep}${open}[REDACTED:${RULES[index].kind}]${close}`;
}

/** Replaces well-known secret shapes in `text` with `[REDACTED:<kind>]`. */
export function redactText(text: string): string {
  return redacted(text, text.length, secretSpans(text));
}

/** Where in a match its rule's literal starts, -1 when it does not contain one. */
export interface LiteralPlacement {
  /** Index of the rule in the ordered list of rules. */
  rule: number;
  kind: string;
  literalAt: number;
}

/**
 * Scans `text` with every rule and no prefilter, and says where each match holds its rule's
 * literal, so that tests keep the literals in step with the rules. Also returns the number of
 * rules, so that tests can check that their samples reach every one.
 */
export function placeLiterals(text: string): { rules: number; placements: LiteralPlacement[] } {
  const placements = Array.from(text.matchAll(new RegExp(PATTERN)), (match) => {
    const rule = ruleIndex(match.groups ?? {});
    const literalAt = match[0].search(new RegExp(RULES[rule].literal));
    return { rule, kind: RULES[rule].kind, literalAt };
  });
  return { rules: RULES.length, placements };
}

interface Span {
  start: number;
  end: number;
  /** A private-key block whose extent depends on text that has not arrived yet. */
  open: boolean;
  /** What replaces the span in redacted text. */
  replacement: string;
}

function secretSpans(text: string): Span[] {
  return secretMatches(text).map((match) => {
    const start = match.index;
    const end = start + match[0].length;
    const open = match.groups?.r0 !== undefined && !KEY_END_AT_END.test(match[0]) &&
      text.length - end < KEY_MARKER_CHARS;
    return { start, end, open, replacement: replacement(match) };
  });
}

/**
 * `text` up to `cut`, with the spans that end by then replaced: `redactText()` of that part
 * when `spans` are those of `text` and the cut is one that `StreamRedactor.push()` calls safe.
 */
function redacted(text: string, cut: number, spans: Span[]): string {
  if (spans.length === 0) return text.slice(0, cut);
  let out = "";
  let at = 0;
  for (const span of spans) {
    if (span.end > cut) break;
    out += text.slice(at, span.start) + span.replacement;
    at = span.end;
  }
  return out + text.slice(at, cut);
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

/**
 * A cut of a long line in `(from, to]` after a non-token character outside every secret, or
 * null when there is none.
 */
function longLineCut(text: string, from: number, to: number, spans: Span[]): number | null {
  let index = spans.length - 1;
  for (let cut = to; cut > from; cut--) {
    while (index >= 0 && spans[index].start >= cut) index--;
    const inSecret = index >= 0 && spans[index].end > cut;
    if (!inSecret && !TOKEN_CHAR.test(text[cut - 1]) && !splitsPair(text, cut)) return cut;
  }
  return null;
}

/**
 * Where a long line with no safe place is cut anyway, so that memory stays bounded: not inside
 * a secret or a character.
 */
function forcedCut(text: string, from: number, to: number, spans: Span[]): number {
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

  /**
   * Adds a chunk and returns the redacted text that no later chunk can change.
   *
   * The held text is scanned once. Cut at a line start or after a non-token character, with no
   * secret across the cut, the part before it has the matches that the whole text has there: a
   * match read past the cut would be a secret across it, and the end of the part can only help
   * `$` (a private-key block, which matches in the whole text too) and a lookahead after a
   * token character. So the spans found give the redacted part; only a forced cut rescans it.
   */
  push(chunk: string): string {
    const heldBefore = this.#held.length;
    this.#held += chunk;
    if (!this.#mayEmit(chunk, heldBefore)) return "";
    const spans = secretSpans(this.#held);
    const openKey = spans.find((span) => span.open);
    const limit = openKey?.start ?? this.#held.length;
    let cut = lineCut(this.#held, limit, spans);
    let spansHold = true;
    if (this.#held.length - cut > MAX_HELD_LINE_CHARS) {
      const to = Math.min(limit, this.#held.length - CUT_LINE_TAIL_CHARS);
      if (to > cut) {
        const safe = longLineCut(this.#held, cut, to, spans);
        if (safe !== null) cut = safe;
        else {
          cut = forcedCut(this.#held, cut, to, spans);
          spansHold = false;
        }
      }
    }
    return this.#emit(cut, openKey, spansHold ? spans : null);
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
    const spans = secretSpans(this.#held);
    const openKey = spans.find((span) => span.open);
    const limit = openKey?.start ?? this.#held.length;
    const cut = wordCut(this.#held, limit, holdLastWords);
    // Cut at the end, the spans are those of the emitted text itself.
    return this.#emit(cut, openKey, cut === this.#held.length ? spans : null);
  }

  /**
   * Hands over the held partial line when no later text can make it part of a secret: it holds
   * no literal and no private-key block is open. The redactor is then empty, as if new; the
   * caller answers for the text from there (a faster path for output without secrets).
   * Returns null, holding on, otherwise.
   */
  release(): string | null {
    if (this.#openKeyAt !== null || hasLiteral(this.#held)) return null;
    const held = this.#held;
    this.#held = "";
    this.#nextLongLineCutAt = MAX_HELD_LINE_CHARS + 1;
    return held;
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

  /** Emits the held text up to `cut`, redacted by `spans` when they hold there, else rescanned. */
  #emit(cut: number, openKey: Span | undefined, spans: Span[] | null): string {
    const ready = spans === null
      ? redactText(this.#held.slice(0, cut))
      : redacted(this.#held, cut, spans);
    this.#held = this.#held.slice(cut);
    this.#openKeyAt = openKey === undefined ? null : openKey.start - cut;
    this.#nextLongLineCutAt = this.#held.length > MAX_HELD_LINE_CHARS
      ? this.#held.length + CUT_RETRY_CHARS
      : MAX_HELD_LINE_CHARS + 1;
    return ready;
  }
}
