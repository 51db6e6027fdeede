import assert from "node:assert/strict";
import fc from "fast-check";
import { Buffer } from "node:buffer";
import {
  hasLiteral,
  LITERAL_REACH,
  MAX_PRIVATE_KEY_CHARS,
  placeLiterals,
  redactText,
} from "../../src/events/redact.ts";
import { cleanCut, MAX_HELD_LINE_CHARS, StreamRedactor } from "../../src/events/stream_redactor.ts";

// Fake secrets: right shape, obviously made-up characters.
const FAKE = {
  anthropic: "sk-ant-api03-" + "a".repeat(90) + "AA",
  openai: "sk-" + "a1".repeat(24),
  openaiProject: "sk-proj-" + "a1".repeat(40),
  aws: "AKIA" + "0".repeat(16),
  awsSession: "ASIA" + "X".repeat(15) + "1",
  githubClassic: "ghp_" + "a".repeat(36),
  githubOauth: "gho_" + "b".repeat(36),
  githubApp: "ghs_" + "c".repeat(36),
  githubFineGrained: "github_pat_" + "1".repeat(22) + "_" + "a".repeat(59),
  slack: "xoxb-0000000000-0000000000-" + "a".repeat(24),
  slackWebhook: "https://hooks.slack.com/services/T00000000/B00000000/" + "X".repeat(24),
  google: "AIza" + "a".repeat(35),
  stripe: "sk_live_" + "0".repeat(24),
  stripeRestricted: "rk_test_" + "0".repeat(24),
  stripeWebhook: "whsec_" + "0".repeat(32),
  jwt: "eyJhbGciOi.eyJzdWIiOi1.c2lnbmF0dXJl",
};

function keyBlock(label: string, bodyLines = 3): string {
  const body = Array.from({ length: bodyLines }, () => "A".repeat(64)).join("\n");
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
}

/** One positive case per kind (and per notable form), as [name, input, expected]. */
const REDACTED: [string, string, string][] = [
  ["an Anthropic key", `key ${FAKE.anthropic} end`, "key [REDACTED:anthropic] end"],
  ["an OpenAI key", `use ${FAKE.openai}.`, "use [REDACTED:openai]."],
  ["an OpenAI project key", FAKE.openaiProject, "[REDACTED:openai]"],
  ["an AWS access key id", `id=${FAKE.aws}`, "id=[REDACTED:aws]"],
  ["an AWS session key id", `(${FAKE.awsSession})`, "([REDACTED:aws])"],
  ["a GitHub classic token", `token ${FAKE.githubClassic}`, "token [REDACTED:github]"],
  ["a GitHub OAuth token", FAKE.githubOauth, "[REDACTED:github]"],
  ["a GitHub app token", FAKE.githubApp, "[REDACTED:github]"],
  ["a GitHub fine-grained token", `"${FAKE.githubFineGrained}"`, '"[REDACTED:github]"'],
  ["a Slack token", `slack ${FAKE.slack}`, "slack [REDACTED:slack]"],
  ["a Slack webhook", `POST ${FAKE.slackWebhook} ok`, "POST [REDACTED:slack] ok"],
  ["a Google API key", `key=${FAKE.google}&q=1`, "key=[REDACTED:google]&q=1"],
  ["a Stripe live key", FAKE.stripe, "[REDACTED:stripe]"],
  ["a Stripe restricted key", FAKE.stripeRestricted, "[REDACTED:stripe]"],
  ["a Stripe webhook secret", FAKE.stripeWebhook, "[REDACTED:stripe]"],
  [
    "an Authorization Bearer header",
    "Authorization: Bearer abc123",
    "Authorization: Bearer [REDACTED:bearer]",
  ],
  [
    "a quoted curl header",
    `curl -H "authorization: bearer ${FAKE.jwt}" x`,
    'curl -H "authorization: bearer [REDACTED:bearer]" x',
  ],
  ["a bare Bearer token", `sent Bearer ${FAKE.jwt}`, "sent Bearer [REDACTED:bearer]"],
  [
    "an Authorization Basic header",
    "Authorization: Basic dXNlcjpwYXNz",
    "Authorization: Basic [REDACTED:authorization]",
  ],
  [
    "an Authorization token header",
    `Authorization: token ${FAKE.githubClassic}`,
    "Authorization: token [REDACTED:authorization]",
  ],
  [
    "an RSA private key block",
    `before\n${keyBlock("RSA PRIVATE KEY")}\nafter`,
    "before\n[REDACTED:private_key]\nafter",
  ],
  ["an OpenSSH private key block", keyBlock("OPENSSH PRIVATE KEY"), "[REDACTED:private_key]"],
  ["a PKCS#8 private key block", keyBlock("PRIVATE KEY"), "[REDACTED:private_key]"],
  ["an encrypted private key block", keyBlock("ENCRYPTED PRIVATE KEY"), "[REDACTED:private_key]"],
  ["a PGP private key block", keyBlock("PGP PRIVATE KEY BLOCK"), "[REDACTED:private_key]"],
  [
    "an unterminated private key block to the end",
    `x\n-----BEGIN PRIVATE KEY-----\n${"A".repeat(64)}\nmore`,
    "x\n[REDACTED:private_key]",
  ],
  ["an env assignment", "OPENAI_API_KEY=abc", "OPENAI_API_KEY=[REDACTED:assignment]"],
  [
    "an assignment whose value is a known key",
    `ANTHROPIC_API_KEY=${FAKE.anthropic}`,
    "ANTHROPIC_API_KEY=[REDACTED:assignment]",
  ],
  [
    "a double-quoted export",
    'export GITHUB_TOKEN="two words"',
    'export GITHUB_TOKEN="[REDACTED:assignment]"',
  ],
  ["a single-quoted value", "DB_PASSWORD='p w'", "DB_PASSWORD='[REDACTED:assignment]'"],
  ["a YAML value", "  CLIENT_SECRET: s3cr3t", "  CLIENT_SECRET: [REDACTED:assignment]"],
  ["a spaced assignment", "APP_SECRET = value", "APP_SECRET = [REDACTED:assignment]"],
  ["a Makefile assignment", "PASSWORD:=hunter2", "PASSWORD:=[REDACTED:assignment]"],
  [
    "a JSON member",
    '{"NPM_TOKEN":"abc","x":1}',
    '{"NPM_TOKEN":"[REDACTED:assignment]","x":1}',
  ],
  [
    "an escaped JSON member",
    String.raw`{\"HF_TOKEN\": \"abc\"}`,
    String.raw`{\"HF_TOKEN\": \"[REDACTED:assignment]\"}`,
  ],
  [
    "an AWS secret access key assignment",
    "AWS_SECRET_ACCESS_KEY=abc/def+ghi",
    "AWS_SECRET_ACCESS_KEY=[REDACTED:assignment]",
  ],
  ["an unterminated quoted value", 'API_KEY="abc', 'API_KEY="[REDACTED:assignment]'],
  [
    "several secrets on one line",
    `${FAKE.aws} and ${FAKE.githubClassic}; ${FAKE.google}`,
    "[REDACTED:aws] and [REDACTED:github]; [REDACTED:google]",
  ],
];

/** Ordinary text that must pass unchanged. */
const KEPT: [string, string][] = [
  ['"sk-" inside a word', "the task-force met at a risk-averse kiosk-ant-thing"],
  ["a short sk- word", "pip install sk-learn"],
  ["an sk- slug without digits", "git checkout sk-my-feature-branch-for-login"],
  ["a variable with no value", "TOKEN="],
  ["a variable followed by a space", "TOKEN= next"],
  ["an empty quoted value", 'API_KEY=""'],
  ["a comparison", 'if TOKEN == "x"'],
  ["a plural token count", "MAX_TOKENS=4096"],
  ["a name that only starts with a secret word", "TOKEN_LIMIT=5"],
  ["lower-case code", "const token = getToken(); password: string;"],
  ["Bearer in prose", "Bearer of bad news"],
  ["Bearer with a long word", "Bearer responsibilities"],
  ["a short ghp_ word", "ghp_short"],
  ["an AWS-like id that is too short", "AKIA" + "0".repeat(15)],
  ["an AWS-like id that is too long", "AKIA" + "0".repeat(17)],
  ["a Google-like key that is too long", "AIza" + "a".repeat(36)],
  ["a public key block", keyBlock("PUBLIC KEY")],
  ["a certificate", keyBlock("CERTIFICATE")],
  ["an existing redaction marker", "[REDACTED:openai] and [REDACTED:private_key]"],
  ["Unicode text", "naïve café 😀 — ok"],
];

Deno.test("redactText() hides each kind of secret", async (t) => {
  for (const [name, input, expected] of REDACTED) {
    await t.step(`hides ${name}`, () => assert.equal(redactText(input), expected));
  }
});

Deno.test("redactText() keeps ordinary text", async (t) => {
  for (const [name, input] of KEPT) {
    await t.step(`keeps ${name}`, () => assert.equal(redactText(input), input));
  }
});

Deno.test("redactText() caps an unterminated private key block", () => {
  const body = "A".repeat(MAX_PRIVATE_KEY_CHARS + 10);
  const output = redactText(`-----BEGIN PRIVATE KEY-----${body}`);
  assert.equal(output, `[REDACTED:private_key]${"A".repeat(10)}`);
});

Deno.test("redactText() is idempotent", () => {
  for (const [, input] of REDACTED) {
    const once = redactText(input);
    assert.equal(redactText(once), once);
  }
});

function pseudoRandomText(length: number, seed: number): string {
  let state = seed;
  return Array.from({ length }, () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return String.fromCharCode(32 + (state % 95));
  }).join("");
}

Deno.test("redactText() finishes on adversarial 64 KiB lines", async (t) => {
  const adversarial = [
    "sk-",
    "sk-a1",
    "AKIA",
    "A_",
    "A_TOKEN=",
    "TOKEN:'",
    "-----BEGIN PRIVATE KEY-----",
    "Bearer ",
    "Bearer a.",
    "Authorization: Bearer ",
    "xoxb-",
    "https://hooks.slack.com/services/",
  ];
  const inputs: [string, string][] = [
    ["random characters", pseudoRandomText(65536, 7)],
    ...adversarial.map((unit): [string, string] => [
      JSON.stringify(unit),
      unit.repeat(Math.ceil(65536 / unit.length)).slice(0, 65536),
    ]),
  ];
  for (const [name, input] of inputs) {
    await t.step(name, () => {
      // No wall-clock assertion (shared, noisy machines): catastrophic backtracking would
      // hang this step instead; `deno task bench` measures the speed.
      const streamedOut = (() => {
        const redactor = new StreamRedactor();
        let out = "";
        for (let at = 0; at < input.length; at += 512) {
          out += redactor.push(input.slice(at, at + 512));
        }
        return out + redactor.flush();
      })();
      assert.equal(streamedOut.length > 0, true);
      assert.equal(typeof redactText(input), "string");
    });
  }
});

function streamed(chunks: string[]): string {
  const redactor = new StreamRedactor();
  return chunks.map((chunk) => redactor.push(chunk)).join("") + redactor.flush();
}

function chunked(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
  return chunks;
}

Deno.test("StreamRedactor.push() redacts a secret split at every boundary", async (t) => {
  for (const [name, input, expected] of REDACTED) {
    await t.step(name, () => {
      const text = `start\n${input}\nend`;
      const whole = redactText(text);
      assert.ok(whole.includes(expected));
      for (let cut = 0; cut <= text.length; cut++) {
        const output = streamed([text.slice(0, cut), text.slice(cut)]);
        assert.equal(output, whole, `cut at ${cut}`);
      }
    });
  }
});

Deno.test("StreamRedactor.push() holds a private key block split over many chunks", () => {
  const block = keyBlock("RSA PRIVATE KEY", 40);
  const text = `before\n${block}\nafter\n`;
  const redactor = new StreamRedactor();
  const outputs = chunked(text, 7).map((chunk) => redactor.push(chunk));
  const endLineAt = text.indexOf("-----END");
  const emittedBeforeEnd = outputs.slice(0, Math.floor(endLineAt / 7)).join("");
  assert.equal(emittedBeforeEnd, "before\n");
  assert.equal(redactor.pending(), 0);
  assert.equal(outputs.join(""), "before\n[REDACTED:private_key]\nafter\n");
});

Deno.test("StreamRedactor.push() waits for an END line that starts at the body bound", () => {
  const begin = "-----BEGIN PRIVATE KEY-----";
  const text = `${begin}${"A".repeat(MAX_PRIVATE_KEY_CHARS - 3)}-----END PRIVATE KEY-----\nok\n`;
  assert.equal(redactText(text), "[REDACTED:private_key]\nok\n");
  for (let cut = text.length - 40; cut <= text.length; cut++) {
    assert.equal(streamed([text.slice(0, cut), text.slice(cut)]), redactText(text), `cut ${cut}`);
  }
});

Deno.test("StreamRedactor.push() gives up on a private key block past its bound", () => {
  const text = `-----BEGIN PRIVATE KEY-----\n${"A\n".repeat(MAX_PRIVATE_KEY_CHARS)}done\n`;
  const redactor = new StreamRedactor();
  let output = "";
  for (const chunk of chunked(text, 100)) {
    output += redactor.push(chunk);
    assert.ok(redactor.pending() <= MAX_PRIVATE_KEY_CHARS + 400, `${redactor.pending()} held`);
  }
  output += redactor.flush();
  assert.ok(output.startsWith("[REDACTED:private_key]"));
  assert.equal(output, redactText(text));
});

Deno.test("StreamRedactor.push() bounds the held part of a long line", async (t) => {
  const secrets = Object.values(FAKE);
  const line = Array.from({ length: 4000 }, (_, i) => `w${i} ${secrets[i % secrets.length]} `)
    .join("");
  const cases: [string, string][] = [
    ["words and secrets", line],
    ["minified JSON", JSON.stringify({ items: line.split(" ") })],
    ["no place to cut", "a".repeat(100_000)],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const redactor = new StreamRedactor();
      let output = "";
      for (const chunk of chunked(text, 1000)) {
        output += redactor.push(chunk);
        assert.ok(redactor.pending() <= MAX_HELD_LINE_CHARS + 1000, `${redactor.pending()} held`);
      }
      assert.equal(output + redactor.flush(), redactText(text));
    });
  }
});

Deno.test("StreamRedactor.push() never cuts a long line between a prefix and its secret", () => {
  const secrets = [
    `Bearer ${"a.".repeat(100)}1`,
    `Bearer ${"a.".repeat(600)}1`,
    `X_TOKEN:        ${"v".repeat(2000)}`,
    `Authorization: Basic ${"b".repeat(1500)}`,
  ];
  for (const secret of secrets) {
    for (let pad = 6000; pad < 9000; pad += 250) {
      const text = `${"x ".repeat(pad / 2)}${secret} end`;
      for (const size of [1, 97, 1000]) {
        assert.equal(streamed(chunked(text, size)), redactText(text), `pad ${pad} size ${size}`);
      }
    }
  }
});

Deno.test("StreamRedactor.pending() counts the held partial line", () => {
  const redactor = new StreamRedactor();
  assert.equal(redactor.push("done\nPassword: "), "done\n");
  assert.equal(redactor.pending(), "Password: ".length);
  assert.equal(redactor.flush(), "Password: ");
  assert.equal(redactor.pending(), 0);
});

Deno.test("StreamRedactor.flushPartial() emits the held partial line", () => {
  const redactor = new StreamRedactor();
  assert.equal(redactor.push(`$ echo ${FAKE.githubClassic}\n> `), "$ echo [REDACTED:github]\n");
  assert.equal(redactor.flushPartial(), "> ");
  assert.equal(redactor.pending(), 0);
});

Deno.test("StreamRedactor.flushPartial() can split a secret, the documented trade-off", () => {
  const redactor = new StreamRedactor();
  redactor.push("sk-ant-api03-abc");
  assert.equal(redactor.flushPartial(), "sk-ant-api03-abc");
  assert.equal(redactor.push("a".repeat(40) + "\n"), "a".repeat(40) + "\n");
});

Deno.test("StreamRedactor.flushPartial() keeps an open private key block", () => {
  const redactor = new StreamRedactor();
  assert.equal(redactor.push("x\n-----BEGIN PRIVATE KEY-----\nAAAA"), "x\n");
  assert.equal(redactor.flushPartial(), "");
  assert.ok(redactor.pending() > 0);
  assert.equal(redactor.push("\n-----END PRIVATE KEY-----\ny\n"), "[REDACTED:private_key]\ny\n");
});

const plantedSecret = fc.constantFrom(
  ...Object.values(FAKE),
  keyBlock("RSA PRIVATE KEY"),
  "-----BEGIN PRIVATE KEY-----\nAAAA",
  "\n-----END PRIVATE KEY-----",
  "OPENAI_API_KEY=",
  "X_TOKEN: ",
  '"API_SECRET":"',
  "Authorization: Bearer ",
  "Bearer ",
);
const filler = fc.oneof(
  fc.string({
    unit: fc.constantFrom("a", "Z", "1", "-", "_", ".", " ", "\n", '"', "=", ":", "é", "😀"),
    maxLength: 30,
    size: "max",
  }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
);

function textArbitrary(maxParts: number): fc.Arbitrary<string> {
  const parts = fc.array(fc.oneof(plantedSecret, filler), { maxLength: maxParts, size: "max" });
  return parts.map((texts) => texts.join(""));
}

function splitAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(text.slice(from, point));
    from = point;
  }
  chunks.push(text.slice(from));
  return chunks;
}

Deno.test("StreamRedactor output equals redactText() of the whole stream", () => {
  fc.assert(
    fc.property(textArbitrary(40), fc.array(fc.nat(), { maxLength: 20 }), (text, cuts) => {
      assert.equal(streamed(splitAt(text, cuts)), redactText(text));
    }),
    { numRuns: 500 },
  );
});

Deno.test("StreamRedactor output equals redactText() across long-line cuts", () => {
  const longLine = fc.array(fc.oneof(plantedSecret, filler), { minLength: 400, maxLength: 800 })
    .map((parts) => parts.join("").replaceAll("\n", " "));
  fc.assert(
    fc.property(longLine, fc.integer({ min: 50, max: 3000 }), (text, size) => {
      assert.equal(streamed(chunked(text, size)), redactText(text));
    }),
    { numRuns: 40 },
  );
});

/** A secret whose literal (`KEY`) starts the furthest into its match that any rule allows. */
const FARTHEST_LITERAL = `${"A".repeat(64)}PRIVATE_KEY=abc`;

Deno.test("placeLiterals(): every rule's literal is in each of its matches, within reach, after no whitespace", async (t) => {
  const samples = [
    ...REDACTED.map(([, input]) => input),
    ...Object.values(FAKE),
    FARTHEST_LITERAL,
    "Authorization: Token abc",
    "AUTHORIZATION=x",
  ];
  const reached = new Set<number>();
  let rules = 0;
  const check = (text: string) => {
    const result = placeLiterals(text);
    rules = result.rules;
    for (const { rule, kind, match, literalAt } of result.placements) {
      reached.add(rule);
      assert.ok(
        literalAt >= 0 && literalAt <= LITERAL_REACH,
        `rule ${rule} (${kind}) has its literal at ${literalAt} in ${JSON.stringify(text)}`,
      );
      // StreamRedactor.releaseSettled() holds back only the last word of text without a literal.
      assert.ok(
        !/\s/.test(match.slice(0, literalAt)),
        `rule ${rule} (${kind}) has whitespace before its literal in ${JSON.stringify(match)}`,
      );
    }
  };
  await t.step("on the samples of every kind", () => samples.forEach(check));
  await t.step("the samples reach every rule", () => {
    assert.deepEqual(
      [...reached].sort((a, b) => a - b),
      Array.from({ length: rules }, (_, i) => i),
    );
  });
  await t.step("on generated text", () => {
    fc.assert(fc.property(textArbitrary(40), (text) => check(text)), { numRuns: 300 });
  });
  await t.step("the farthest literal is exactly at the reach", () => {
    const [placement] = placeLiterals(FARTHEST_LITERAL).placements;
    assert.equal(placement.literalAt, LITERAL_REACH);
  });
});

Deno.test("redactText() finds a secret whose literal is LITERAL_REACH into it", () => {
  const text = `x ${FARTHEST_LITERAL} y`;
  const expected = `x ${"A".repeat(64)}PRIVATE_KEY=[REDACTED:assignment] y`;
  assert.equal(redactText(text), expected);
  for (let cut = 0; cut <= text.length; cut++) {
    assert.equal(streamed([text.slice(0, cut), text.slice(cut)]), expected, `cut at ${cut}`);
  }
});

Deno.test("redactText() returns text without any literal as it is", () => {
  const text = "the agent reads file src/main.ts: 42 tests passed (cached) — café 🙂\n".repeat(500);
  assert.equal(redactText(text), text);
  assert.equal(streamed(chunked(text, 4096)), text);
});

/** Each output of `push()`, and the held text that it released, in order. */
function releases(chunks: string[]): [string, string][] {
  const redactor = new StreamRedactor();
  const result: [string, string][] = [];
  let pushed = "";
  let released = 0;
  for (const chunk of chunks) {
    pushed += chunk;
    const output = redactor.push(chunk);
    const releasedNow = pushed.length - redactor.pending();
    result.push([output, pushed.slice(released, releasedNow)]);
    released = releasedNow;
  }
  return result;
}

Deno.test("StreamRedactor.push() returns redactText() of exactly the text it releases", async (t) => {
  // push() reuses the spans of its one scan; a rescan of the released part must agree.
  await t.step("on lines with planted secrets", () => {
    fc.assert(
      fc.property(textArbitrary(40), fc.array(fc.nat(), { maxLength: 20 }), (text, cuts) => {
        for (const [output, part] of releases(splitAt(text, cuts))) {
          assert.equal(output, redactText(part));
        }
      }),
      { numRuns: 300 },
    );
  });
  await t.step("on long lines, forced cuts included", () => {
    const longLine = fc.array(
      fc.oneof(plantedSecret, filler, fc.constant("x".repeat(3000))),
      { minLength: 200, maxLength: 600 },
    ).map((parts) => parts.join("").replaceAll("\n", " "));
    fc.assert(
      fc.property(longLine, fc.integer({ min: 50, max: 3000 }), (text, size) => {
        for (const [output, part] of releases(chunked(text, size))) {
          assert.equal(output, redactText(part));
        }
      }),
      { numRuns: 40 },
    );
  });
});

/** UTF-8 bytes of `text` read as Latin-1: one character per byte. */
function latin1Of(text: string): string {
  return Buffer.from(new TextEncoder().encode(text)).toString("latin1");
}

Deno.test("hasLiteral() gives the same answer on UTF-8 read as Latin-1 as on the text", () => {
  const withBytes = fc.oneof(textArbitrary(20), fc.string({ unit: "binary", maxLength: 200 }));
  fc.assert(
    fc.property(withBytes, (text) => {
      assert.equal(hasLiteral(latin1Of(text)), hasLiteral(text), JSON.stringify(text));
    }),
    { numRuns: 1000 },
  );
  for (const secret of Object.values(FAKE)) {
    if (redactText(secret) !== secret) assert.ok(hasLiteral(latin1Of(`é ${secret} 🙂`)));
  }
  assert.equal(hasLiteral(latin1Of("the agent — café 日本語 🙂 build passed\n")), false);
});

Deno.test("hasLiteral(): no text without a literal has a secret", () => {
  fc.assert(
    fc.property(textArbitrary(30), (text) => {
      if (!hasLiteral(text)) assert.equal(redactText(text), text);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("cleanCut() cuts after the last newline", async (t) => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  await t.step("a held partial line", () => assert.equal(cleanCut(bytes("ab\ncd\nef")), 6));
  await t.step("no newline", () => assert.equal(cleanCut(bytes("abc")), 0));
  await t.step("ending in a newline", () => assert.equal(cleanCut(bytes("ab\n")), 3));
  await t.step("a partial line of the most held bytes", () => {
    assert.equal(cleanCut(bytes("ab\n" + "x".repeat(MAX_HELD_LINE_CHARS))), 3);
  });
});

Deno.test("cleanCut() cuts a long line after a non-token character, holding 1024 bytes", async (t) => {
  const encode = (text: string) => new TextEncoder().encode(text);
  await t.step("after the last space before the tail", () => {
    const line = "word ".repeat(2000);
    const cut = cleanCut(encode(line));
    assert.equal(cut, line.lastIndexOf(" ", line.length - 1024) + 1);
    assert.ok(line.length - cut >= 1024);
  });
  await t.step("after a multi-byte character, never inside one", () => {
    const line = "x".repeat(9000) + "€" + "y".repeat(1500);
    const bytes = encode(line);
    assert.equal(cleanCut(bytes), 9003);
  });
  await t.step("at a character boundary when no place is safe", () => {
    const line = "x".repeat(9001) + "€" + "y".repeat(1022); // The tail starts inside "€".
    const bytes = encode(line);
    const cut = cleanCut(bytes);
    assert.equal(cut, 9001);
    assert.notEqual(bytes[cut] & 0xc0, 0x80);
  });
});

Deno.test("StreamRedactor.release() hands over a held line only when it is clean", async (t) => {
  await t.step("a clean partial line", () => {
    const redactor = new StreamRedactor();
    assert.equal(redactor.push("a\nprompt> "), "a\n");
    assert.equal(redactor.release(), "prompt> ");
    assert.equal(redactor.pending(), 0);
    assert.equal(redactor.push("b\n"), "b\n");
  });
  await t.step("not a line that holds a literal", () => {
    const redactor = new StreamRedactor();
    redactor.push("MY_TOKEN=abc");
    assert.equal(redactor.release(), null);
    assert.equal(redactor.push("def\n"), "MY_TOKEN=[REDACTED:assignment]\n");
  });
  await t.step("not while a private key block is open", () => {
    const redactor = new StreamRedactor();
    redactor.push("-----BEGIN PRIVATE KEY-----\nAAAA\n");
    assert.equal(redactor.release(), null);
  });
});
