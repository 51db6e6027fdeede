/**
 * The pure parts of the real chat terminal; the terminal itself is driven in
 * tmux (chat_tmux_test.ts) and through pipes (chat_cli_test.ts).
 */
import assert from "node:assert/strict";
import { InputQueue, LineSplitter, rowsOf } from "../../src/cli/chat_terminal.ts";

Deno.test("InputQueue hands inputs over in order, to waiters first", async (t) => {
  await t.step("queued before anyone waits", async () => {
    const queue = new InputQueue();
    queue.push({ type: "line", text: "a" });
    queue.push({ type: "interrupt" });
    assert.deepEqual(await queue.next(), { type: "line", text: "a" });
    assert.deepEqual(await queue.next(), { type: "interrupt" });
  });

  await t.step("a waiter gets the next push", async () => {
    const queue = new InputQueue();
    const waiting = queue.next();
    queue.push({ type: "eof" });
    assert.deepEqual(await waiting, { type: "eof" });
  });

  await t.step("an aborted wait resolves null and takes nothing", async () => {
    const queue = new InputQueue();
    const controller = new AbortController();
    const waiting = queue.next(controller.signal);
    controller.abort();
    assert.equal(await waiting, null);
    queue.push({ type: "line", text: "kept" });
    assert.deepEqual(await queue.next(), { type: "line", text: "kept" });
    assert.equal(await queue.next(controller.signal), null);
  });

  await t.step(
    "interruptsOnly takes an interrupt past queued lines, which keep their order",
    async () => {
      const queue = new InputQueue();
      queue.push({ type: "line", text: "a" });
      const waiting = queue.next(undefined, { interruptsOnly: true });
      queue.push({ type: "eof" });
      queue.push({ type: "interrupt" });
      assert.deepEqual(await waiting, { type: "interrupt" });
      queue.push({ type: "interrupt" });
      assert.deepEqual(await queue.next(undefined, { interruptsOnly: true }), {
        type: "interrupt",
      });
      assert.deepEqual(await queue.next(), { type: "line", text: "a" });
      assert.deepEqual(await queue.next(), { type: "eof" });
    },
  );
});

Deno.test("LineSplitter splits LF and CRLF lines across chunks", () => {
  const splitter = new LineSplitter();
  assert.deepEqual(splitter.push("one\r\ntw"), ["one"]);
  assert.deepEqual(splitter.push("o\n\nthr"), ["two", ""]);
  assert.equal(splitter.flush(), "thr");
  assert.equal(splitter.flush(), null);
});

Deno.test("rowsOf() counts the rows a prompt line takes", () => {
  assert.equal(rowsOf(0, 80), 1);
  assert.equal(rowsOf(80, 80), 1);
  assert.equal(rowsOf(81, 80), 2);
  assert.equal(rowsOf(10, 0), 10);
});
