import assert from "node:assert/strict";
import { cursorParam, integerParam } from "../../src/api/query.ts";
import { ServiceError } from "../../src/errors.ts";

const url = (query: string) => new URL(`http://localhost/x?${query}`);

Deno.test("integerParam() clamps out-of-range values and refuses non-integers (C4.2)", () => {
  const range = { min: 1, max: 1000 };
  assert.equal(integerParam(url(""), "limit", range), undefined);
  assert.equal(integerParam(url("limit=5"), "limit", range), 5);
  assert.equal(integerParam(url("limit=0"), "limit", range), 1);
  assert.equal(integerParam(url("limit=-7"), "limit", range), 1);
  assert.equal(integerParam(url("limit=5000"), "limit", range), 1000);
  for (const bad of ["limit=", "limit=abc", "limit=1.5", "limit=1e3", "limit=0x10"]) {
    assert.throws(
      () => integerParam(url(bad), "limit", range),
      (error: unknown) =>
        error instanceof ServiceError && error.code === "invalid_request" &&
        error.details.field === "limit",
    );
  }
});

Deno.test("cursorParam() takes only non-negative integers", () => {
  assert.equal(cursorParam(url("afterSeq=0"), "afterSeq"), 0);
  assert.equal(cursorParam(url("afterSeq=42"), "afterSeq"), 42);
  for (
    const bad of ["afterSeq=-1", "afterSeq=x", "afterSeq=1.0", "afterSeq=99999999999999999999"]
  ) {
    assert.throws(() => cursorParam(url(bad), "afterSeq"), ServiceError);
  }
});
