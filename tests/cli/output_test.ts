import assert from "node:assert/strict";
import type { ClientResponse } from "../../src/client/client.ts";
import { EXIT, type Io } from "../../src/cli/command.ts";
import { describeError, printResponse, table } from "../../src/cli/output.ts";

interface Captured {
  io: Io;
  out: string[];
  err: string[];
}

function capture(): Captured {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      write: (text) => out.push(text),
      writeErr: (text) => err.push(text),
      env: () => undefined,
    },
  };
}

const ERROR_BODY = {
  error: {
    code: "invalid_request",
    message: 'Field "prompt" is required',
    details: { field: "prompt" },
  },
};

Deno.test("table() aligns columns to the widest cell", async (t) => {
  await t.step("pads every column but the last", () => {
    assert.equal(
      table(["ID", "STATUS", "TITLE"], [
        ["ses_1", "running", "Fix the tests"],
        ["ses_22222", "completed", "x"],
      ]),
      [
        "ID         STATUS     TITLE",
        "ses_1      running    Fix the tests",
        "ses_22222  completed  x",
      ].join("\n"),
    );
  });
  await t.step("a header wider than its cells sets the width", () => {
    assert.equal(table(["LONG HEADER", "B"], [["a", "b"]]), "LONG HEADER  B\na            b");
  });
  await t.step("no rows prints the header only", () => {
    assert.equal(table(["ID", "STATUS"], []), "ID  STATUS");
  });
  await t.step("a missing cell pads as empty", () => {
    assert.equal(table(["A", "B", "C"], [["aaa"], ["b", "c", "d"]]), "A    B  C\naaa\nb    c  d");
  });
  await t.step("the last column is never padded", () => {
    const lines = table(["A", "B"], [["1", "short"], ["2", "much longer"]]).split("\n");
    assert.deepEqual(lines.map((line) => line.endsWith(" ")), [false, false, false]);
  });
});

Deno.test("describeError() formats an error envelope", async (t) => {
  const cases: Array<[string, unknown, string]> = [
    ["with a field", ERROR_BODY, 'invalid_request: Field "prompt" is required (field "prompt")'],
    [
      "without a field",
      {
        error: {
          code: "session_not_found",
          message: 'Session "ses_1" does not exist',
          details: {},
        },
      },
      'session_not_found: Session "ses_1" does not exist',
    ],
    [
      "without details",
      { error: { code: "internal_error", message: "Internal error" } },
      "internal_error: Internal error",
    ],
    [
      "with an empty field",
      { error: { code: "invalid_request", message: "Bad", details: { field: "" } } },
      "invalid_request: Bad",
    ],
  ];
  for (const [name, body, expected] of cases) {
    await t.step(name, () => assert.equal(describeError(body), expected));
  }
});

Deno.test("describeError() prints a body that is not an envelope as JSON", async (t) => {
  const cases: Array<[string, unknown, string]> = [
    ["a string", "Bad Gateway", 'svc answered: "Bad Gateway"'],
    ["null", null, "svc answered: null"],
    ["undefined", undefined, "svc answered: undefined"],
    ["an object without error", { ok: false }, 'svc answered: {"ok":false}'],
    [
      "an error without code",
      { error: { message: "m" } },
      'svc answered: {"error":{"message":"m"}}',
    ],
    ["a number", 502, "svc answered: 502"],
  ];
  for (const [name, body, expected] of cases) {
    await t.step(name, () => assert.equal(describeError(body), expected));
  }
});

Deno.test("printResponse() writes success and failure to the right stream and exit code", async (t) => {
  const ok: ClientResponse<{ n: number }> = { status: 200, ok: true, body: { n: 1 } };
  const failed = { status: 400, ok: false, body: ERROR_BODY } as unknown as ClientResponse<
    { n: number }
  >;
  const human = ({ n }: { n: number }) => `n is ${n}`;

  await t.step("success, human: stdout, exit 0", () => {
    const c = capture();
    assert.equal(printResponse(c.io, ok, false, human), EXIT.ok);
    assert.deepEqual(c.out, ["n is 1"]);
    assert.deepEqual(c.err, []);
  });
  await t.step("success, json undefined is human", () => {
    const c = capture();
    assert.equal(printResponse(c.io, ok, undefined, human), EXIT.ok);
    assert.deepEqual(c.out, ["n is 1"]);
  });
  await t.step("success, --json: indented JSON on stdout, exit 0", () => {
    const c = capture();
    assert.equal(printResponse(c.io, ok, true, human), EXIT.ok);
    assert.deepEqual(c.out, [JSON.stringify({ n: 1 }, null, 2)]);
    assert.deepEqual(c.err, []);
  });
  await t.step("failure, human: described on stderr, exit 1, human not called", () => {
    const c = capture();
    const code = printResponse(c.io, failed, false, () => assert.fail("human() called"));
    assert.equal(code, EXIT.refused);
    assert.deepEqual(c.out, []);
    assert.deepEqual(c.err, ['invalid_request: Field "prompt" is required (field "prompt")']);
  });
  await t.step("failure, --json: raw JSON on stderr, exit 1", () => {
    const c = capture();
    assert.equal(printResponse(c.io, failed, true, human), EXIT.refused);
    assert.deepEqual(c.out, []);
    assert.deepEqual(c.err, [JSON.stringify(ERROR_BODY, null, 2)]);
  });
  await t.step("failure with a non-envelope body", () => {
    const c = capture();
    const raw = { status: 502, ok: false, body: "Bad Gateway" } as unknown as ClientResponse<
      { n: number }
    >;
    assert.equal(printResponse(c.io, raw, false, human), EXIT.refused);
    assert.deepEqual(c.err, ['svc answered: "Bad Gateway"']);
  });
});
