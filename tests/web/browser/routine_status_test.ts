/**
 * Pausing and activating a routine from the web app (issue 34, D30) in real
 * Chromium against a real daemon: an `operate` device's card asks with the
 * browser's confirm, showing `svc ui`'s question (prompt, cwd, schedule,
 * isolation, approvals), and the status changes live; Cancel changes
 * nothing; `p` does the same for the selected routine; a device without
 * operate is told why.
 */
import assert from "node:assert/strict";
import type { Dialog, Page } from "playwright-core";
import { gitRepository } from "../../helpers/git.ts";
import { removeTree } from "../../helpers/home.ts";
import { act } from "../../helpers/scripted_agent.ts";
import { routineDefinition } from "../../helpers/routine.ts";
import { DESKTOP, hasChromium, PHONE, type Rig, startRig } from "./page.ts";

const browserTest = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: !hasChromium, sanitizeResources: false, sanitizeOps: false, fn });

/** Answers the page's next confirm (`accept` or not) and gives back its question. */
function nextQuestion(page: Page, accept: boolean): Promise<string> {
  return new Promise((resolve) => {
    page.once("dialog", (dialog: Dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
  });
}

async function storedStatus(rig: Rig): Promise<string> {
  const got = await act(rig.t, "svc.automations.get", { id: "nightly" });
  return got.result.routine.status;
}

browserTest(
  "web app routines: Activate and Pause ask with svc ui's question, the status follows live, p does the same",
  async () => {
    await using rig = await startRig();
    // An isolated routine needs its cwd in a git repository (D20).
    const project = await gitRepository();
    await using _removed = { [Symbol.asyncDispose]: () => removeTree(project) };
    const created = await act(rig.t, "svc.automations.create", {
      definition: routineDefinition("nightly", {
        name: "Nightly check",
        runtime: "agent",
        prompt: "tidy the repo",
        cwd: project,
        isolation: "worktree",
        approvals: "deny",
      }),
    });
    assert.equal(created.http, 200, JSON.stringify(created));
    const page = await rig.page(PHONE);
    await rig.pair(page, "operate");
    await page.goto(`${rig.origin}/#/routines`);
    const card = page.getByRole("listitem", { name: "nightly: Nightly check" });
    const status = card.locator("dd").first();
    await card.getByText("paused", { exact: true }).waitFor();

    // Activate asks first with the stored definition; Cancel changes nothing.
    const activate = card.getByRole("button", { name: "Activate nightly" });
    const declined = nextQuestion(page, false);
    await activate.click();
    const question = await declined;
    assert.match(question, /^Activate routine nightly\?/);
    for (
      const line of [
        /prompt: +tidy the repo/,
        new RegExp(`cwd: +${project}`),
        /rrule: +FREQ=DAILY;BYHOUR=3/,
        /isolation: +worktree/,
        /approvals: +deny/,
      ]
    ) {
      assert.match(question, line);
    }
    assert.doesNotMatch(question, /createdAt/);
    assert.equal(await storedStatus(rig), "PAUSED");

    // Accepted: the routine is ACTIVE and the card says so without a reload.
    const accepted = nextQuestion(page, true);
    await activate.click();
    await accepted;
    await card.getByText("active", { exact: true }).waitFor();
    await page.getByText("Activated").waitFor();
    assert.equal(await storedStatus(rig), "ACTIVE");

    // Pause from the card, then Activate again.
    const pausing = nextQuestion(page, true);
    await card.getByRole("button", { name: "Pause nightly" }).click();
    assert.match(await pausing, /^Pause routine nightly\?/);
    await card.getByText("paused", { exact: true }).waitFor();
    assert.equal(await storedStatus(rig), "PAUSED");
    const again = nextQuestion(page, true);
    await card.getByRole("button", { name: "Activate nightly" }).click();
    await again;
    await card.getByText("active", { exact: true }).waitFor();
    assert.equal(await status.textContent(), "active");

    // On the desktop, p pauses the selected routine (asked the same way).
    const desktop = await rig.page(DESKTOP);
    await rig.pair(desktop, "operate");
    await desktop.keyboard.press("5");
    const row = desktop.getByRole("listitem", { name: "nightly: Nightly check" });
    await row.getByText("active", { exact: true }).waitFor();
    const keyed = nextQuestion(desktop, true);
    await desktop.keyboard.press("p");
    assert.match(await keyed, /^Pause routine nightly\?\n {2}schemaVersion/);
    await row.getByText("paused", { exact: true }).waitFor();
    // The phone's page follows the change it did not make.
    await card.getByText("paused", { exact: true }).waitFor();
    assert.equal(await storedStatus(rig), "PAUSED");

    // A device that may only approve has no buttons, and p says why.
    const approver = await rig.page(DESKTOP);
    await rig.pair(approver, "approve");
    await approver.keyboard.press("5");
    const seen = approver.getByRole("listitem", { name: "nightly: Nightly check" });
    await seen.getByText("paused", { exact: true }).waitFor();
    assert.equal(await seen.getByRole("button").count(), 0);
    await approver.keyboard.press("p");
    await approver.getByText("Pausing or activating a routine needs the operate scope").waitFor();
    assert.equal(await storedStatus(rig), "PAUSED");
  },
);
