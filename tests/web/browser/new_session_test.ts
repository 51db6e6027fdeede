/**
 * The web's new-session page (issue 34, D30: `operate` may launch) in real
 * Chromium against a real daemon with `projectRoots` set: on the phone the
 * form launches the scripted agent and its page shows the reply; a root
 * outside the daemon's roots shows the daemon's own refusal; on the desktop
 * `c` opens the form and Enter launches; an approve-scoped device has no
 * form, and `c` says why.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { removeTree, tempHome } from "../../helpers/home.ts";
import { DESKTOP, hasChromium, PHONE, screenshot, startRig } from "./page.ts";

const browserTest = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: !hasChromium, sanitizeResources: false, sanitizeOps: false, fn });

/** Chooses the harness `id` in the form (its text is its label, with the id when they differ). */
async function chooseHarness(page: Page, id: string): Promise<void> {
  const harness = page.getByLabel("Harness");
  const texts = await harness.locator("option").allTextContents();
  const index = texts.findIndex((text) => text === id || text.endsWith(`(${id})`));
  assert.ok(index >= 0, `no harness ${id} among ${JSON.stringify(texts)}`);
  await harness.selectOption(String(index));
}

browserTest(
  "web app new session: the phone's form launches agent and opens its reply; a root outside projectRoots shows the daemon's error",
  async () => {
    const allowed = await Deno.realPath(await tempHome());
    try {
      await using rig = await startRig({ config: { projectRoots: [allowed] } });
      const outside = await rig.project();
      const page = await rig.page(PHONE);
      await rig.pair(page, "operate");

      await page.getByRole("link", { name: "New session" }).click();
      await page.waitForURL((url) => url.hash === "#/new");
      await chooseHarness(page, "agent");
      await page.getByLabel("Project root").fill(outside);
      await page.getByLabel("Prompt").fill("hello from the phone");
      await page.getByRole("button", { name: "Launch" }).click();
      const refusal = page.getByRole("alert");
      await refusal.getByText("is outside the configured project roots").waitFor();
      assert.match(await refusal.textContent() ?? "", new RegExp(outside.replaceAll("/", "\\/")));
      assert.equal(new URL(page.url()).hash, "#/new");
      await screenshot(page, "new-refused");

      await page.getByLabel("Project root").fill(allowed);
      await page.getByRole("button", { name: "Launch" }).click();
      await page.waitForURL((url) => url.hash.startsWith("#/s/"));
      await page.getByText("echo: hello from the phone").waitFor();
      const id = decodeURIComponent(new URL(page.url()).hash.slice("#/s/".length));
      const record = await rig.t.client.get<{ harness: string; project_root: string }>(
        `/sessions/${id}`,
      );
      assert.equal(record.body.harness, "agent");
      assert.equal(record.body.project_root, allowed);
    } finally {
      await removeTree(allowed);
    }
  },
);

browserTest(
  "web app new session: c opens the form on an operate desktop and Enter off its fields launches; an approve device has no form and c says why",
  async () => {
    await using rig = await startRig();
    const project = await rig.project();
    const page = await rig.page(DESKTOP);
    await rig.pair(page, "operate");
    await page.keyboard.press("c");
    await page.waitForURL((url) => url.hash === "#/new");
    // The prompt has the keys, as in svc ui's form, once the form is up (it takes the focus).
    const deadline = Date.now() + 5000;
    while (await page.evaluate<string>("document.activeElement?.tagName ?? ''") !== "TEXTAREA") {
      assert.ok(Date.now() < deadline, "the prompt never took the focus");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await page.keyboard.type("tidy the README");
    assert.equal(await page.getByLabel("Prompt").inputValue(), "tidy the README");
    await chooseHarness(page, "agent");
    await page.getByLabel("Project root").fill(project);
    await page.getByLabel("Isolate in a git worktree").check();
    await screenshot(page, "new");
    await page.getByLabel("Isolate in a git worktree").uncheck();
    // Esc leaves the field; Enter off the fields launches, as svc ui's form, and opens the session.
    await page.getByLabel("Prompt").focus();
    await page.keyboard.press("Escape");
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.hash.startsWith("#/s/"));
    await page.getByText("echo: tidy the README").waitFor();
    // Esc: back to the fleet.
    await page.keyboard.press("Escape");
    await page.waitForURL((url) => url.hash === "#/fleet");

    const approver = await rig.page(DESKTOP);
    await rig.pair(approver, "approve");
    assert.equal(await approver.getByRole("link", { name: "New session" }).count(), 0);
    await approver.keyboard.press("c");
    await approver.getByText("Launching a session needs the operate scope").waitFor();
    assert.equal(new URL(approver.url()).hash, "#/fleet");
    await approver.goto(`${rig.origin}/#/new`);
    await approver.getByRole("alert").getByText("this device may only read and answer requests")
      .waitFor();
    assert.equal(await approver.getByRole("button", { name: "Launch" }).count(), 0);
  },
);
