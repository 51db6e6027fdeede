import assert from "node:assert/strict";
import { ServiceError } from "../../src/errors.ts";

/** `"403 forbidden"` for the `ServiceError` that `fn` throws; null when it throws nothing. */
export function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    return `${error.status} ${error.code}`;
  }
}
