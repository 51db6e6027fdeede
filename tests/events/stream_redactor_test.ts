import assert from "node:assert/strict";
import fc from "fast-check";
import { LITERAL_REACH, redactText } from "../../src/events/redact.ts";
import { StreamRedactor } from "../../src/events/stream_redactor.ts";

// Fake secrets of every shape the rules know, each with the part that must never be shown.
const KEYS: { name: string; text: string; secret: string }[] = [
  { name: "an Anthropic key", text: "sk-ant-api03-" + "a1B2".repeat(24), secret: "a1B2a1B2" },
  { name: "an OpenAI key", text: "sk-proj-" + "x9".repeat(24), secret: "x9x9x9x9" },
  { name: "an AWS key id", text: "AKIA" + "Q7".repeat(8), secret: "Q7Q7Q7Q7" },
  { name: "a GitHub token", text: "ghp_" + "g4".repeat(18), secret: "g4g4g4g4" },
  { name: "a Slack token", text: "xoxb-1234567890-" + "s5".repeat(12), secret: "s5s5s5s5" },
  {
    name: "a Slack webhook",
    text: "https://hooks.slack.com/services/T0/B0/" + "w8".repeat(12),
    secret: "w8w8w8w8",
  },
  { name: "a Google key", text: "AIza" + "G3".repeat(17) + "x", secret: "G3G3G3G3" },
  { name: "a Stripe key", text: "sk_live_" + "p6".repeat(12), secret: "p6p6p6p6" },
  {
    name: "an Authorization header",
    text: "Authorization: Bearer h7" + "J".repeat(20),
    secret: "h7JJJJJJ",
  },
  { name: "a bare Bearer token", text: "Bearer b2" + "K".repeat(20), secret: "b2KKKKKK" },
  { name: "an assignment", text: "OPENAI_API_KEY=v3" + "L".repeat(20), secret: "v3LLLLLL" },
  {
    name: "a quoted assignment with spaces",
    text: 'DB_PASSWORD: "q4 M M M M M M M M"',
    secret: "q4 M M M",
  },
  {
    name: "a private key block",
    text: "-----BEGIN RSA PRIVATE KEY-----\n" + "k1".repeat(32) + "\n-----END RSA PRIVATE KEY-----",
    secret: "k1k1k1k1",
  },
];

/** Deltas through a redactor as a conversation sends them: what each released, then the flush. */
function released(pieces: string[]): string[] {
  const redactor = new StreamRedactor();
  const out = pieces.map((piece) => redactor.push(piece) + redactor.releaseSettled());
  return [...out, redactor.flush()];
}

/** `text` as deltas: the first `offset` characters, then pieces of `size`. */
function deltas(text: string, offset: number, size: number): string[] {
  const pieces = [text.slice(0, offset)];
  for (let at = offset; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

Deno.test("StreamRedactor.releaseSettled() never shows a key streamed in deltas split at any offset", async (t) => {
  for (const key of KEYS) {
    await t.step(key.name, () => {
      const text = `Here it is: ${key.text} and the rest of the answer.\nDone.`;
      const whole = redactText(text);
      assert.ok(!whole.includes(key.secret), whole);
      for (const size of [1, 2, 3, 4, 7]) {
        for (let offset = 0; offset <= text.length; offset++) {
          const pieces = released(deltas(text, offset, size));
          // Each piece is added to what came before: every concatenation is a prefix of this.
          assert.equal(pieces.join(""), whole, `size ${size}, offset ${offset}`);
        }
      }
    });
  }
});

Deno.test("StreamRedactor.releaseSettled() holds back only the last word of text without a literal", () => {
  const redactor = new StreamRedactor();
  assert.equal(redactor.push("Hello"), "");
  assert.equal(redactor.releaseSettled(), "");
  redactor.push(" wor");
  assert.equal(redactor.releaseSettled(), "Hello ");
  redactor.push("ld, how are ");
  assert.equal(redactor.releaseSettled(), "world, how are ");
  assert.equal(redactor.pending(), 0);
  redactor.push("you");
  assert.equal(redactor.releaseSettled(), "");
  assert.equal(redactor.flush(), "you");
});

Deno.test("StreamRedactor.releaseSettled() holds a line with a literal from LITERAL_REACH before it", () => {
  const redactor = new StreamRedactor();
  const before = "w ".repeat(60);
  redactor.push(before + "set MY_TOKEN to it, then ");
  const shown = redactor.releaseSettled();
  const literalAt = before.length + "set MY_".length;
  assert.ok(shown.length <= literalAt - LITERAL_REACH, shown);
  assert.equal(shown, before.slice(0, shown.length));
  assert.equal(
    redactor.push("more\nnext "),
    before.slice(shown.length) + "set MY_TOKEN to it, then more\n",
  );
  assert.equal(redactor.releaseSettled(), "next ");
});

Deno.test("StreamRedactor.releaseSettled() shows nothing of an open private key block", () => {
  const redactor = new StreamRedactor();
  assert.equal(redactor.push("see\n-----BEGIN PRIVATE KEY-----\nAAAA\n"), "see\n");
  redactor.push("BBBB more words ");
  assert.equal(redactor.releaseSettled(), "");
  assert.equal(redactor.flush(), "[REDACTED:private_key]");
});

Deno.test("StreamRedactor.flush() redacts a key held when the message ends mid-way", () => {
  const redactor = new StreamRedactor();
  redactor.push("key " + KEYS[0].text.slice(0, 30));
  assert.equal(redactor.releaseSettled(), "", "all of it is within reach of the literal");
  assert.equal(redactor.flush(), "key [REDACTED:anthropic]");
});

const word = fc.oneof(
  fc.constantFrom(...KEYS.map((key) => key.text), "sk-", "task-force", "Bearer", "KEY", "-----"),
  fc.string({ unit: "grapheme", maxLength: 12 }),
);
const gap = fc.constantFrom(" ", "  ", "\n", "\t", ": ", "=", '"', ", ");

Deno.test("StreamRedactor push() and releaseSettled() join into redactText() of the whole", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(word, gap), { maxLength: 30 }),
      fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 20 }),
      (parts, sizes) => {
        const text = parts.map(([w, g]) => w + g).join("");
        const pieces: string[] = [];
        for (let at = 0, i = 0; at < text.length; i++) {
          const size = sizes[i % sizes.length];
          pieces.push(text.slice(at, at + size));
          at += size;
        }
        assert.equal(released(pieces).join(""), redactText(text));
      },
    ),
    { numRuns: 500 },
  );
});
