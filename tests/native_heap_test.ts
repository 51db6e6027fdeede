import assert from "node:assert/strict";
import { trimNativeHeap } from "../src/native_heap.ts";

Deno.test("trimNativeHeap() trims on Linux with glibc and FFI allowed, and is a no-op elsewhere", () => {
  const canTrim = Deno.build.os === "linux" &&
    Deno.permissions.querySync({ name: "ffi" }).state === "granted";
  const trimmed = trimNativeHeap();
  if (!canTrim) assert.equal(trimmed, false);
  assert.equal(trimNativeHeap(), trimmed, "the same answer every time");
});
