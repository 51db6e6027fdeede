import assert from "node:assert/strict";
import { ServiceError } from "../../src/errors.ts";
import {
  contextAdmissionSchema,
  defaultTitle,
  killRequestSchema,
  MAX_PROMPT_BYTES,
  parseLaunchRequest,
  refuseContextAdmission,
} from "../../src/sessions/launch_request.ts";
import { parseInput } from "../../src/validate.ts";

const BASE = { projectRoot: "/abs/repo", harness: "claude", prompt: "Fix the tests" };
const DIGEST = "sha256:" + "0123456789abcdef".repeat(4);
const SOURCE = { kind: "file", ref: "src/main.ts", digest: DIGEST };
const OPENAI_KEY = "sk-" + "a1".repeat(24);

/** The `details.field` of the 400 that `fn` throws. */
function refusedField(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, "invalid_request");
    assert.equal(error.status, 400);
    return error.details.field;
  }
  assert.fail("accepted");
}

Deno.test("parseLaunchRequest() accepts the D7 example", () => {
  const request = {
    ...BASE,
    cwd: "/abs/repo/pkg",
    model: "m",
    title: "t",
    familiarId: "f",
  };
  assert.deepEqual(parseLaunchRequest(request), request);
});

Deno.test("parseLaunchRequest() refuses sessionPolicy before anything else", async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ["null", { ...BASE, sessionPolicy: null }],
    ["an object", { ...BASE, sessionPolicy: { profile: "x" } }],
    ["with required fields missing", { sessionPolicy: null }],
    ["with an unknown key too", { bogus: 1, sessionPolicy: "x" }],
  ];
  for (const [name, body] of cases) {
    await t.step(name, () => {
      assert.equal(refusedField(() => parseLaunchRequest(body)), "sessionPolicy");
    });
  }
});

Deno.test("parseLaunchRequest() names required and unknown fields", async (t) => {
  const cases: Array<[string, unknown, string | undefined]> = [
    ["missing projectRoot", { harness: "claude", prompt: "p" }, "projectRoot"],
    ["missing harness", { projectRoot: "/r", prompt: "p" }, "harness"],
    ["missing prompt", { projectRoot: "/r", harness: "claude" }, "prompt"],
    ["unknown key", { ...BASE, bogus: true }, "bogus"],
    ["a non-object body", "text", undefined],
    ["null", null, undefined],
  ];
  for (const [name, body, field] of cases) {
    await t.step(name, () => assert.equal(refusedField(() => parseLaunchRequest(body)), field));
  }
});

Deno.test("parseLaunchRequest() bounds prompt in UTF-8 bytes", async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ["empty", "", false],
    ["one byte", "a", true],
    ["256 KiB of ASCII", "a".repeat(MAX_PROMPT_BYTES), true],
    ["256 KiB + 1 of ASCII", "a".repeat(MAX_PROMPT_BYTES + 1), false],
    ["256 KiB of 2-byte characters", "é".repeat(MAX_PROMPT_BYTES / 2), true],
    ["one byte over with 2-byte characters", "é".repeat(MAX_PROMPT_BYTES / 2) + "a", false],
    ["3-byte characters filling to the edge", "€".repeat(87_381) + "a", true],
    ["3-byte characters one byte over", "€".repeat(87_381) + "ab", false],
    ["256 KiB of 4-byte characters", "😀".repeat(MAX_PROMPT_BYTES / 4), true],
    ["4-byte characters one byte over", "😀".repeat(MAX_PROMPT_BYTES / 4) + "a", false],
  ];
  for (const [name, prompt, accepted] of cases) {
    await t.step(name, () => {
      if (accepted) assert.equal(parseLaunchRequest({ ...BASE, prompt }).prompt, prompt);
      else assert.equal(refusedField(() => parseLaunchRequest({ ...BASE, prompt })), "prompt");
    });
  }
});

Deno.test("parseLaunchRequest() bounds model, title and familiarId in characters", async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ["model", "", false],
    ["model", "m".repeat(64), true],
    ["model", "m".repeat(65), false],
    ["model", "😀".repeat(32), true],
    ["familiarId", "", false],
    ["familiarId", "f".repeat(64), true],
    ["familiarId", "f".repeat(65), false],
    ["title", "t".repeat(160), true],
    ["title", "t".repeat(161), false],
    ["cwd", "", false],
  ];
  for (const [field, value, accepted] of cases) {
    await t.step(`${field} of length ${value.length}: ${accepted ? "accepted" : "refused"}`, () => {
      const body = { ...BASE, [field]: value };
      if (accepted) assert.equal(parseLaunchRequest(body)[field as "model"], value);
      else assert.equal(refusedField(() => parseLaunchRequest(body)), field);
    });
  }
});

// D7 measures model, familiarId and title in JavaScript string length (zod 4's own
// .max counts code points past the bound, so 33 emoji would pass max(64)).
Deno.test({
  name: "parseLaunchRequest() bounds model, title and familiarId in UTF-16 units",
  async fn(t) {
    const cases: Array<[string, string]> = [
      ["model", "😀".repeat(33)],
      ["familiarId", "😀".repeat(33)],
      ["title", "😀".repeat(81)],
    ];
    for (const [field, value] of cases) {
      await t.step(`${field} of length ${value.length} refused`, () => {
        assert.equal(refusedField(() => parseLaunchRequest({ ...BASE, [field]: value })), field);
      });
    }
  },
});

Deno.test("contextAdmissionSchema accepts a valid intent", async (t) => {
  const cases: Array<[string, unknown]> = [
    ["one file source", { version: 1, sources: [SOURCE] }],
    ["a text source", { version: 1, sources: [{ ...SOURCE, kind: "text" }] }],
    ["64 sources", { version: 1, sources: Array(64).fill(SOURCE) }],
    ["a 1-character ref", { version: 1, sources: [{ ...SOURCE, ref: "x" }] }],
    ["a 1024-character ref", { version: 1, sources: [{ ...SOURCE, ref: "x".repeat(1024) }] }],
  ];
  for (const [name, intent] of cases) {
    await t.step(name, () => {
      assert.deepEqual(
        parseLaunchRequest({ ...BASE, contextAdmission: intent }).contextAdmission,
        intent,
      );
    });
  }
});

Deno.test("contextAdmissionSchema refuses an invalid intent, naming the field", async (t) => {
  const intent = (sources: unknown[], extra: Record<string, unknown> = {}) => ({
    version: 1,
    sources,
    ...extra,
  });
  const cases: Array<[string, unknown, string]> = [
    ["version 2", { version: 2, sources: [SOURCE] }, "contextAdmission.version"],
    ["no version", { sources: [SOURCE] }, "contextAdmission.version"],
    ["no sources", intent([]), "contextAdmission.sources"],
    ["65 sources", intent(Array(65).fill(SOURCE)), "contextAdmission.sources"],
    ["unknown kind", intent([{ ...SOURCE, kind: "url" }]), "contextAdmission.sources.0.kind"],
    ["empty ref", intent([{ ...SOURCE, ref: "" }]), "contextAdmission.sources.0.ref"],
    [
      "1025-character ref",
      intent([SOURCE, { ...SOURCE, ref: "x".repeat(1025) }]),
      "contextAdmission.sources.1.ref",
    ],
    [
      "upper-case digest",
      intent([{ ...SOURCE, digest: DIGEST.toUpperCase() }]),
      "contextAdmission.sources.0.digest",
    ],
    [
      "63 hex digits",
      intent([{ ...SOURCE, digest: DIGEST.slice(0, -1) }]),
      "contextAdmission.sources.0.digest",
    ],
    [
      "65 hex digits",
      intent([{ ...SOURCE, digest: DIGEST + "0" }]),
      "contextAdmission.sources.0.digest",
    ],
    [
      "no sha256: prefix",
      intent([{ ...SOURCE, digest: DIGEST.slice(7) }]),
      "contextAdmission.sources.0.digest",
    ],
    [
      "non-hex digit",
      intent([{ ...SOURCE, digest: DIGEST.slice(0, -1) + "g" }]),
      "contextAdmission.sources.0.digest",
    ],
    [
      "unknown key in a source",
      intent([{ ...SOURCE, size: 1 }]),
      "contextAdmission.sources.0.size",
    ],
    ["unknown key in the intent", intent([SOURCE], { receipt: true }), "contextAdmission.receipt"],
    ["null", null, "contextAdmission"],
  ];
  for (const [name, value, field] of cases) {
    await t.step(name, () => {
      assert.equal(
        refusedField(() => parseLaunchRequest({ ...BASE, contextAdmission: value })),
        field,
      );
    });
  }
  await t.step("the schema on its own reports the same path", () => {
    assert.equal(
      refusedField(() =>
        parseInput(contextAdmissionSchema, intent([{ ...SOURCE, kind: "x" }]), "contextAdmission")
      ),
      "contextAdmission.sources.0.kind",
    );
  });
});

Deno.test("killRequestSchema refuses contextAdmission as an unknown field", () => {
  assert.equal(
    refusedField(() =>
      parseInput(killRequestSchema, { contextAdmission: { version: 1, sources: [SOURCE] } })
    ),
    "contextAdmission",
  );
});

Deno.test("refuseContextAdmission() passes a request without the member", () => {
  assert.equal(refuseContextAdmission({}), undefined);
  assert.equal(refuseContextAdmission({ contextAdmission: undefined }), undefined);
});

Deno.test("refuseContextAdmission() refuses any intent with 503 context_admission_unavailable", () => {
  const request = parseLaunchRequest({
    ...BASE,
    contextAdmission: { version: 1, sources: [SOURCE] },
  });
  assert.throws(() => refuseContextAdmission(request), (error: unknown) => {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, "context_admission_unavailable");
    assert.equal(error.status, 503);
    assert.deepEqual(error.details, {});
    assert.deepEqual(error.extra, { accepted: false, receiptIssued: false });
    return true;
  });
});

Deno.test("defaultTitle() is the prompt's first line, redacted, cut to 160 characters", async (t) => {
  const cases: Array<[string, string, string]> = [
    ["one line", "Fix the tests", "Fix the tests"],
    ["first of several lines", "Fix the tests\nthen lint\nthen push", "Fix the tests"],
    ["empty first line", "\nsecond", ""],
    ["exactly 160", "a".repeat(160), "a".repeat(160)],
    ["cut to 160", "a".repeat(200) + "\nmore", "a".repeat(160)],
    ["a secret is redacted", `use ${OPENAI_KEY} now`, "use [REDACTED:openai] now"],
    ["a secret on a later line is not used", `Fix\n${OPENAI_KEY}`, "Fix"],
    [
      "a secret across the cut is redacted before cutting",
      "x".repeat(150) + " " + OPENAI_KEY,
      ("x".repeat(150) + " [REDACTED:openai]").slice(0, 160),
    ],
  ];
  for (const [name, prompt, expected] of cases) {
    await t.step(name, () => {
      const title = defaultTitle(prompt);
      assert.equal(title, expected);
      assert.ok(!title.includes("sk-"));
      assert.ok(title.length <= 160);
    });
  }
});

Deno.test({
  name: "defaultTitle() ends the first line at CRLF",
  fn() {
    assert.equal(defaultTitle("Fix the tests\r\nthen lint"), "Fix the tests");
  },
});

Deno.test({
  name: "defaultTitle() never splits a surrogate pair at the cut",
  fn() {
    const title = defaultTitle("a".repeat(159) + "😀 and more");
    assert.ok(title.isWellFormed(), JSON.stringify(title));
  },
});
