/**
 * Secret redaction for stored output and input (D9). Well-known secret shapes become
 * `[REDACTED:<kind>]`; prefixes that say what the secret was (`OPENAI_API_KEY=`, `Bearer `) stay.
 * `stream_redactor.ts` applies it to text that arrives in pieces.
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
 * Before its literal, no match holds whitespace (the start of a token, a name, `A` of
 * `Authorization`, `-----BEGI`): text whose end may still become a secret but holds no literal
 * yet can only do so in its last word, which is what the stream redactor holds back from text
 * shown as it is written.
 *
 * Every pattern is linear: runs are anchored by a lookbehind to the start of a token and
 * every other repetition, lookaheads included, is bounded. Whether a shape matches is thus
 * decided within CUT_LINE_TAIL_CHARS of its start, or by a run that is still going; the stream
 * redactor relies on that to cut long lines.
 */

/** Longest private-key body, in characters, held to find its END line. */
export const MAX_PRIVATE_KEY_CHARS = 16384;

/** Characters kept back when a long line is cut, enough for any bounded secret shape. */
export const CUT_LINE_TAIL_CHARS = 1024;

/** Upper bound on the length of a BEGIN or END line of a private key. */
export const KEY_MARKER_CHARS = 80;

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

/** Where the first literal of any rule starts in `text`, -1 when it holds none. */
export function firstLiteralAt(text: string): number {
  return text.search(ANY_LITERAL);
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
  /** The matched text. */
  match: string;
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
    return { rule, kind: RULES[rule].kind, match: match[0], literalAt };
  });
  return { rules: RULES.length, placements };
}

/** A secret found in a text: where it is and what replaces it. */
export interface Span {
  start: number;
  end: number;
  /** A private-key block whose extent depends on text that has not arrived yet. */
  open: boolean;
  /** What replaces the span in redacted text. */
  replacement: string;
}

/** The secrets in `text`, in order; an open private-key block may grow with more text. */
export function secretSpans(text: string): Span[] {
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
export function redacted(text: string, cut: number, spans: Span[]): string {
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
