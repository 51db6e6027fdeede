import assert from "node:assert/strict";
import stringWidth from "string-width";
import type { FocusLine } from "../../src/ui/focus.ts";
import { CHUNK_CHARS, TranscriptWindow } from "../../src/ui/transcript_window.ts";

const line = (text: string): FocusLine => ({ text, tone: "plain" });
const texts = (rows: ReadonlyArray<{ text: string }>) => rows.map((row) => row.text);

/** A measure that counts the characters it was asked about. */
function countingMeasure() {
  const counted = { chars: 0 };
  const measure = (grapheme: string) => {
    counted.chars += grapheme.length;
    return stringWidth(grapheme);
  };
  return { counted, measure };
}

Deno.test("TranscriptWindow.rows() wraps words to the width and follows the newest rows", () => {
  const window = new TranscriptWindow();
  const lines = [line("one"), line("the quick brown fox jumps over the lazy dog"), line("")];
  const { rows, linesBelow } = window.rows(lines, { width: 10, height: 4, scroll: null });
  assert.deepEqual(texts(rows), ["jumps over", "the lazy", "dog", ""]);
  assert.deepEqual(linesBelow, 0);
  assert.deepEqual(
    texts(window.rows(lines, { width: 10, height: 20, scroll: null }).rows),
    ["one", "the quick", "brown fox", "jumps over", "the lazy", "dog", ""],
  );
});

Deno.test("TranscriptWindow.rows() cuts a long word, measures wide characters, expands tabs", async (t) => {
  const window = new TranscriptWindow();
  await t.step("a word longer than a row is cut", () => {
    const { rows } = window.rows([line("abcdefghijklmnopqrstuvwxyz")], {
      width: 10,
      height: 5,
      scroll: null,
    });
    assert.deepEqual(texts(rows), ["abcdefghij", "klmnopqrst", "uvwxyz"]);
  });
  await t.step("wide characters and emoji take two columns", () => {
    const text = "漢字かな交じり文 👩‍👩‍👧 done";
    const { rows } = window.rows([line(text)], { width: 7, height: 10, scroll: null });
    assert.deepEqual(texts(rows).join("").replaceAll(" ", ""), text.replaceAll(" ", ""));
    for (const row of rows) assert(stringWidth(row.text) <= 7, row.text);
    assert.deepEqual(rows.at(-2)?.text, "り文 👩‍👩‍👧", "2 + 2 + 1 + 2 columns");
  });
  await t.step("a tab goes to the next stop as spaces", () => {
    const { rows } = window.rows([line("a\tb\tc")], { width: 40, height: 1, scroll: null });
    assert.deepEqual(texts(rows), ["a       b       c"]);
  });
});

Deno.test("TranscriptWindow.scrollBy() scrolls back, holds still while lines arrive, follows at the bottom", () => {
  const window = new TranscriptWindow();
  const lines = Array.from({ length: 30 }, (_, i) => line(`line ${i}`));
  const size = { width: 20, height: 5 };
  const back = window.scrollBy(lines, { ...size, scroll: null, by: -10 });
  const shown = window.rows(lines, { ...size, scroll: back });
  assert.deepEqual(texts(shown.rows), ["line 15", "line 16", "line 17", "line 18", "line 19"]);
  assert.deepEqual(shown.linesBelow, 10);
  const grown = [...lines, line("line 30"), line("line 31")];
  assert.deepEqual(texts(window.rows(grown, { ...size, scroll: back }).rows), texts(shown.rows));
  assert.deepEqual(window.rows(grown, { ...size, scroll: back }).linesBelow, 12);
  assert.deepEqual(
    window.scrollBy(grown, { ...size, scroll: back, by: 12 }),
    null,
    "down to the end",
  );
  const top = window.scrollBy(lines, { ...size, scroll: back, by: -1000 });
  assert.deepEqual(top, window.top(lines, size));
  assert.deepEqual(texts(window.rows(lines, { ...size, scroll: top }).rows).at(0), "line 0");
  assert.deepEqual(window.scrollBy(lines.slice(0, 3), { ...size, scroll: null, by: -5 }), null);
  assert.deepEqual(
    texts(window.rows(lines.slice(20), { ...size, scroll: back }).rows).at(0),
    "line 20",
    "the scrolled line was dropped: the window shows the top",
  );
});

Deno.test("TranscriptWindow measures a bounded amount of a 10 × 300k-character conversation", () => {
  const { counted, measure } = countingMeasure();
  const window = new TranscriptWindow(measure);
  // Non-ASCII throughout, so every character would go through `measure` if it were wrapped.
  const lines = Array.from({ length: 10 }, (_, i) => line(`${i} ${"漢字かな ".repeat(60_000)}`));
  const size = { width: 80, height: 20 };
  const follow = window.rows(lines, { ...size, scroll: null });
  assert.deepEqual(follow.rows.length, 20);
  for (const row of follow.rows) assert(stringWidth(row.text) <= 80);
  assert(counted.chars <= 2 * CHUNK_CHARS, `the first frame measured ${counted.chars}`);

  counted.chars = 0;
  window.rows(lines, { ...size, scroll: null });
  assert.deepEqual(counted.chars, 0, "a second frame (a tick) measures nothing again");

  const back = window.scrollBy(lines, { ...size, scroll: null, by: -19 });
  window.rows(lines, { ...size, scroll: back });
  assert(counted.chars <= CHUNK_CHARS, `a page up measured ${counted.chars}`);

  counted.chars = 0;
  const top = window.top(lines, size);
  assert.deepEqual(window.rows(lines, { ...size, scroll: top }).rows[0].text.slice(0, 4), "0 漢字");
  assert(counted.chars <= CHUNK_CHARS, `the top measured ${counted.chars}`);

  counted.chars = 0;
  window.rows(lines, { width: 60, height: 20, scroll: null });
  assert(counted.chars <= 2 * CHUNK_CHARS, `a resize measured ${counted.chars}`);
});

Deno.test("TranscriptWindow.tail() keeps the end of a line that fits, measuring only that", () => {
  const { counted, measure } = countingMeasure();
  const window = new TranscriptWindow(measure);
  assert.deepEqual(window.tail("hello world", 5), "world");
  assert.deepEqual(window.tail("漢字かな", 5), "かな");
  window.tail("字".repeat(300_000), 80);
  assert(counted.chars <= 80 * 8, `measured ${counted.chars}`);
});
