import assert from "node:assert/strict";
import { HELP_COLUMN_WIDTH, helpPage } from "../../src/ui/help_page.ts";
import { KEYMAP } from "../../src/ui/keymap.ts";

function helpTexts(page: ReturnType<typeof helpPage>): string[] {
  return page.columns.flat().flatMap((row) => row.kind === "key" ? [row.help] : []);
}

Deno.test("helpPage() holds every key on one page of a large terminal", () => {
  const page = helpPage("fleet", { width: 200, height: 46, page: 0 });
  assert.equal(page.pages, 1);
  assert.ok(page.columns.length * HELP_COLUMN_WIDTH <= 196);
  for (const binding of KEYMAP) assert.ok(helpTexts(page).includes(binding.help), binding.help);
  assert.deepEqual(page.columns[0][0], { kind: "title", text: "Fleet (this view)" });
});

Deno.test("helpPage() pages at 80×24; together the pages hold every key once", () => {
  const first = helpPage("session", { width: 80, height: 20, page: 0 });
  assert.ok(first.pages > 1);
  assert.equal(first.columns.length, 2);
  const all: string[] = [];
  for (let page = 0; page < first.pages; page++) {
    const shown = helpPage("session", { width: 80, height: 20, page });
    for (const column of shown.columns) {
      assert.ok(column.length <= 16);
      assert.notEqual(column[0]?.kind, "gap");
    }
    all.push(...helpTexts(shown));
  }
  for (const binding of KEYMAP) assert.ok(all.includes(binding.help), binding.help);
  assert.equal(helpPage("session", { width: 80, height: 20, page: 99 }).page, first.pages - 1);
  assert.equal(helpPage("session", { width: 80, height: 20, page: -1 }).page, 0);
});
