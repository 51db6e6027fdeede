/**
 * The web app's desktop keys and its land view (issue 34, D30, D34) in real
 * Chromium against a real daemon: `svc ui`'s keys switch views, move and
 * open, allow a scripted agent's request with `y`, show the same help with
 * `?`, and stay text in a field; the land queue's items change state live,
 * and `X` cancels the failed one, after which the queue goes on.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { git, gitRepository } from "../../helpers/git.ts";
import { removeTree } from "../../helpers/home.ts";
import { isolatedSession } from "../../helpers/isolated_session.ts";
import { launchAgent, waitForKind } from "../../helpers/scripted_agent.ts";
import { DESKTOP, hasChromium, PHONE, screenshot, startRig } from "./page.ts";

const browserTest = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: !hasChromium, sanitizeResources: false, sanitizeOps: false, fn });

const hashOf = (page: Page) => new URL(page.url()).hash;

/** Waits until the page's fragment is `hash` (keys navigate by the fragment). */
async function atHash(page: Page, hash: string | RegExp): Promise<void> {
  await page.waitForURL((url) =>
    typeof hash === "string" ? url.hash === hash : hash.test(url.hash)
  );
}

browserTest(
  "web app keys: svc ui's keys switch views, answer a request with y, show ? help, and stay text in a field",
  async () => {
    await using rig = await startRig();
    const project = await rig.project();
    const talking = await launchAgent(rig.t, project, { prompt: "hello" });
    await waitForKind(rig.t, talking, "agent.message");
    const page = await rig.page(DESKTOP);
    await rig.pair(page, "operate");

    // 3: the approvals; y allows the selected request and the tool runs.
    const asking = await launchAgent(rig.t, project, { approvals: "ask" });
    await page.keyboard.press("3");
    await atHash(page, "#/approvals");
    const card = page.getByRole("listitem", { name: "Bash: touch created.txt" });
    await card.waitFor();
    assert.equal(await card.getAttribute("aria-current"), "true");
    await page.keyboard.press("y");
    const resolved = await waitForKind(rig.t, asking, "agent.permission.resolved");
    assert.equal(resolved[0].decision, "allow", JSON.stringify(resolved));
    // The prompt is the first agent.message (role user); the reply is the second.
    assert.match(JSON.stringify(await waitForKind(rig.t, asking, "agent.message", 2)), /allowed/);
    await card.waitFor({ state: "detached" });

    // ?: svc ui's help of this view; Esc closes it.
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keys" });
    const own = help.locator(".help-section").first();
    await own.getByRole("heading", { name: "Approvals (this view)" }).waitFor();
    await own.getByText("allow the request").waitFor();
    await help.getByText("cancel the land (asks)").waitFor();
    await screenshot(page, "keys", { bothSizes: false });
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });

    // 1: the fleet; j moves the selection, k back, Enter opens the selected session.
    await page.keyboard.press("1");
    await atHash(page, "#/fleet");
    const rows = page.locator("ul.fleet > li");
    await rows.nth(1).waitFor();
    assert.equal(await rows.nth(0).getAttribute("aria-current"), "true");
    await page.keyboard.press("j");
    assert.equal(await rows.nth(1).getAttribute("aria-current"), "true");
    assert.equal(await rows.nth(0).getAttribute("aria-current"), null);
    // /: the filter field (its keys are text); Enter gives the keys back with the filter kept.
    await page.keyboard.press("/");
    await page.keyboard.type(talking);
    await page.keyboard.press("Enter");
    await rows.nth(1).waitFor({ state: "detached" });
    await page.keyboard.press("/");
    await page.keyboard.press("Escape");
    await rows.nth(1).waitFor();
    const second = await rows.nth(1).getByRole("link").getAttribute("href");
    await page.keyboard.press("Enter");
    await atHash(page, second!.slice(1));

    // i: the message box; keys typed there are text, Enter sends, Esc leaves the box.
    await page.goto(`${rig.origin}/#/s/${talking}`);
    await page.getByText("echo: hello").waitFor();
    await page.keyboard.press("i");
    await page.keyboard.type("1 j ?");
    assert.equal(hashOf(page), `#/s/${talking}`);
    assert.equal(await page.getByLabel("Message to the agent").inputValue(), "1 j ?");
    await page.keyboard.press("Enter");
    await page.getByText("echo: 1 j ?").waitFor();
    await page.keyboard.press("Escape");
    await page.keyboard.press("2");
    await atHash(page, "#/attention");
    // 4: back to the session shown last, as svc ui's session view.
    await page.keyboard.press("4");
    await atHash(page, `#/s/${talking}`);
    // Esc: from a session to the fleet.
    await page.keyboard.press("Escape");
    await atHash(page, "#/fleet");
  },
);

browserTest(
  "web app: a session's own request is answered by n in its view; a read device is told it may not",
  async () => {
    await using rig = await startRig();
    const project = await rig.project();
    const asking = await launchAgent(rig.t, project, { approvals: "ask" });
    await waitForKind(rig.t, asking, "agent.permission");
    const reader = await rig.page(DESKTOP);
    await rig.pair(reader, "read");
    await reader.goto(`${rig.origin}/#/s/${asking}`);
    await reader.getByRole("heading", { level: 1 }).waitFor();
    await reader.keyboard.press("y");
    await reader.getByText("This device may read only").waitFor();

    const page = await rig.page(DESKTOP);
    await rig.pair(page, "approve");
    await page.goto(`${rig.origin}/#/s/${asking}`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    await page.getByRole("link", { name: "Approvals (1)" }).waitFor();
    await page.keyboard.press("n");
    const resolved = await waitForKind(rig.t, asking, "agent.permission.resolved");
    assert.equal(resolved[0].decision, "deny", JSON.stringify(resolved));
  },
);

browserTest(
  "web app: the land view shows the queue's states live, and X cancels the failed item so the rest lands",
  async () => {
    await using rig = await startRig();
    const repo = await gitRepository();
    try {
      const sessions: string[] = [];
      for (const files of [{ "a.txt": "first\n" }, { "a.txt": "second\n" }, { "c.txt": "3\n" }]) {
        const { id, path } = await isolatedSession(rig.t, repo);
        for (const [name, text] of Object.entries(files)) {
          await Deno.writeTextFile(`${path}/${name}`, text);
        }
        sessions.push(id);
      }
      const reader = await rig.page(PHONE);
      await rig.pair(reader, "approve");
      await reader.goto(`${rig.origin}/#/land`);
      await reader.getByText("needs a device paired with the operate scope").waitFor();

      const pages = [await rig.page(PHONE), await rig.page(DESKTOP)];
      for (const page of pages) {
        await rig.pair(page, "operate");
        await page.keyboard.press("7");
        await atHash(page, "#/land");
        await page.getByText("Nothing to land.").waitFor();
      }
      const queued = await rig.t.client.post<{ items: Array<{ itemId: string }> }>(
        "/land-queue",
        { items: sessions, mode: "squash" },
      );
      assert.equal(queued.status, 202, JSON.stringify(queued.body));
      for (const page of pages) {
        const item = (index: number) => page.getByRole("listitem", { name: `${sessions[index]}:` });
        await item(0).getByText("✓ landed").waitFor({ timeout: 20_000 });
        await item(1).getByText("✗ failed").waitFor({ timeout: 20_000 });
        await item(1).getByText("conflict: a.txt", { exact: false }).waitFor();
        await item(2).getByText("… queued").waitFor();
        await screenshot(page, "land");
      }

      const [phone, desktop] = pages;
      const row = (index: number) => desktop.locator("ul.land > li").nth(index);
      await desktop.keyboard.press("X");
      await desktop.getByText("Only a queued, sent back or failed land can be cancelled").waitFor();
      desktop.once("dialog", (dialog) => void dialog.accept());
      await desktop.keyboard.press("j");
      assert.equal(await row(1).getAttribute("aria-current"), "true");
      await desktop.keyboard.press("X");
      await desktop.getByText("Cancelled the land").waitFor();
      // Both pages follow /stream: the cancel and the land it let through show without a reload.
      for (const page of pages) {
        await page.locator("ul.land > li").nth(1).getByText("- cancelled").waitFor();
        await page.locator("ul.land > li").nth(2).getByText("✓ landed").waitFor({
          timeout: 20_000,
        });
      }
      assert.equal(await phone.getByRole("button", { name: /^Cancel the land/ }).count(), 0);
      assert.equal(await git(repo, "show", "HEAD:c.txt"), "3\n");
    } finally {
      await removeTree(repo);
    }
  },
);
