import assert from "node:assert/strict";
import { pagedScroll } from "../../src/ui/paged_scroll.ts";

Deno.test("pagedScroll() moves a line, a page, to the top and the last page, within the text", () => {
  const text = { lines: 50, page: 20 };
  assert.equal(pagedScroll(0, "up", text), 0);
  assert.equal(pagedScroll(0, "down", text), 1);
  assert.equal(pagedScroll(5, "page-up", text), 0);
  assert.equal(pagedScroll(40, "page-down", text), 49);
  assert.equal(pagedScroll(30, "top", text), 0);
  assert.equal(pagedScroll(0, "bottom", text), 30);
  assert.equal(pagedScroll(0, "bottom", { lines: 5, page: 20 }), 0);
  assert.equal(pagedScroll(3, "open", text), null);
});
