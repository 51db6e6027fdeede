import assert from "node:assert/strict";
import { checkBodyHeaders, MAX_BODY_BYTES, readJsonBody } from "../../src/policy/body.ts";
import { ServiceError } from "../../src/errors.ts";

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  // A server sees the framing headers; a constructed Request has none, so set them.
  const framing: Record<string, string> = body === null ? {} : { "transfer-encoding": "chunked" };
  return new Request("http://localhost/api/v1/actions", {
    method: "POST",
    body,
    headers: { ...framing, ...headers },
  });
}

async function codeOf(fn: () => unknown): Promise<string | null> {
  try {
    await fn();
    return null;
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    return `${error.status} ${error.code}`;
  }
}

Deno.test("checkBodyHeaders() requires application/json for bodies (D14)", async () => {
  assert.equal(
    await codeOf(() => checkBodyHeaders(post("{}", { "content-type": "application/json" }))),
    null,
  );
  assert.equal(
    await codeOf(() =>
      checkBodyHeaders(post("{}", { "content-type": "application/json; charset=utf-8" }))
    ),
    null,
  );
  assert.equal(
    await codeOf(() => checkBodyHeaders(post("{}", { "content-type": "text/plain" }))),
    "415 unsupported_media_type",
  );
  assert.equal(await codeOf(() => checkBodyHeaders(post(null))), null);
});

Deno.test("checkBodyHeaders() refuses a declared length over 1 MiB (D6)", async () => {
  const req = post("x", {
    "content-type": "application/json",
    "content-length": String(MAX_BODY_BYTES + 1),
  });
  assert.equal(await codeOf(() => checkBodyHeaders(req)), "413 payload_too_large");
});

Deno.test("readJsonBody() bounds a streamed body and parses JSON", async () => {
  const big = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 3; i++) controller.enqueue(new Uint8Array(512 * 1024).fill(32));
      controller.close();
    },
  });
  assert.equal(await codeOf(() => readJsonBody(post(big))), "413 payload_too_large");
  assert.equal(await codeOf(() => readJsonBody(post("{nope"))), "400 invalid_request");
  assert.equal(
    await codeOf(() => readJsonBody(post(new Uint8Array([0x22, 0xff, 0x22])))),
    "400 invalid_request",
  );
  assert.deepEqual(await readJsonBody(post('{"a":1}')), { a: 1 });
  assert.deepEqual(await readJsonBody(post(null)), {});
});
