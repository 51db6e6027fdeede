import assert from "node:assert/strict";
import { quitConfirm } from "../../src/ui/confirms.ts";

Deno.test("quitConfirm() asks only while sessions are live, and quits on y", () => {
  let quit = 0;
  assert.equal(quitConfirm(0, () => quit++), null);
  const ask = quitConfirm(2, () => quit++);
  assert.deepEqual(ask?.lines, [
    "2 sessions are live and keep running after svc ui quits.",
    "Quit? y quits, n stays",
  ]);
  assert.match(
    quitConfirm(1, () => quit++)?.lines[0] ?? "",
    /^1 session is live and keeps running/,
  );
  assert.equal(ask?.run(), null);
  assert.equal(quit, 1);
});
