/**
 * The web app (issue 34, D30) in real Chromium against a real daemon:
 * pairing from the printed URL, approvals answered from a phone, a turn
 * typed in the session view with its answer streamed, revocation, and a
 * daemon restart survived without a reload, an isolated session's diff
 * reviewed and landed.
 */
import assert from "node:assert/strict";
import { restartTestDaemon } from "../../helpers/daemon.ts";
import { git, gitRepository } from "../../helpers/git.ts";
import { removeTree } from "../../helpers/home.ts";
import { isolatedSession } from "../../helpers/isolated_session.ts";
import { routineDefinition } from "../../helpers/routine.ts";
import { act, launchAgent, waitForKind } from "../../helpers/scripted_agent.ts";
import { DESKTOP, hasChromium, PHONE, screenshot, startRig } from "./page.ts";

const browserTest = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: !hasChromium, sanitizeResources: false, sanitizeOps: false, fn });

browserTest(
  "web app: the printed pairing URL pairs, clears its code and shows the fleet; a used code says so",
  async () => {
    await using rig = await startRig();
    for (const viewport of [PHONE, DESKTOP]) {
      const page = await rig.page(viewport);
      const { url } = await rig.pair(page, "approve");
      assert.equal(new URL(page.url()).hash, "#/fleet");
      assert.ok(!page.url().includes(url.split("#")[1]));
      await screenshot(page, "fleet");
      const again = await rig.page(viewport);
      await again.goto(url);
      await again.getByText("already used, has expired or is unknown").waitFor();
      assert.equal(new URL(again.url()).hash, "");
      await screenshot(again, "pairing-refused");
    }
  },
);

browserTest(
  "web app: on a phone, a request is allowed from its card and the tool runs; another is denied",
  async () => {
    await using rig = await startRig();
    const project = await rig.project();
    const page = await rig.page(PHONE);
    await rig.pair(page, "approve");
    await page.goto(`${rig.origin}/#/approvals`);
    const allowed = await launchAgent(rig.t, project, { approvals: "ask" });
    const card = page.getByRole("listitem", { name: "Bash: touch created.txt" });
    await card.waitFor();
    await screenshot(page, "approvals");
    await card.getByRole("button", { name: "Allow" }).click();
    await waitForKind(rig.t, allowed, "agent.permission.resolved");
    const replies = await waitForKind(rig.t, allowed, "agent.message", 2); // the prompt, then the reply
    assert.match(JSON.stringify(replies), /allowed/);

    const denied = await launchAgent(rig.t, project, {
      approvals: "ask",
      prompt: "ask Bash rm -rf build",
    });
    const second = page.getByRole("listitem", { name: "Bash: rm -rf build" });
    await second.getByRole("button", { name: "Deny" }).click();
    const resolved = await waitForKind(rig.t, denied, "agent.permission.resolved");
    assert.equal(resolved[0].decision, "deny", JSON.stringify(resolved));
    await second.waitFor({ state: "detached" });
  },
);

browserTest(
  "web app: a turn typed in the session view reaches the agent and its answer streams in",
  async () => {
    await using rig = await startRig();
    const project = await rig.project();
    const id = await launchAgent(rig.t, project, { prompt: "hello" });
    await waitForKind(rig.t, id, "agent.message");
    for (const viewport of [PHONE, DESKTOP]) {
      const page = await rig.page(viewport);
      await rig.pair(page, "operate");
      await page.goto(`${rig.origin}/#/s/${id}`);
      await page.getByText("echo: hello").waitFor();
      await screenshot(page, "session");
    }
    const page = await rig.page(DESKTOP);
    await rig.pair(page, "operate");
    await page.goto(`${rig.origin}/#/s/${id}`);
    await page.getByLabel("Message to the agent").fill(
      "stream one two three four five six seven",
    );
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".line.partial").waitFor();
    await page.getByText("one two three four five six seven").last().waitFor();
    await page.locator(".line.partial").waitFor({ state: "detached" });
  },
);

browserTest("web app: a revoked device's page says it was revoked", async () => {
  await using rig = await startRig();
  const page = await rig.page(PHONE);
  await rig.pair(page, "read");
  const devices = await rig.t.client.get<{ devices: Array<{ id: string }> }>("/devices");
  await rig.t.client.post("/devices/revoke", { id: devices.body.devices[0].id });
  await page.getByRole("heading", { name: "This device was revoked" }).waitFor({ timeout: 10_000 });
  await screenshot(page, "revoked");
});

browserTest(
  "web app: while the daemon restarts a banner says so, then it recovers without a reload",
  async () => {
    await using rig = await startRig();
    const page = await rig.page(DESKTOP);
    await rig.pair(page, "read");
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    await rig.t.daemon.stop();
    const banner = page.getByRole("status").filter({ hasText: /daemon|reconnecting|retrying/i });
    await banner.waitFor({ timeout: 10_000 });
    await screenshot(page, "daemon-away");
    await using _again = await restartTestDaemon({
      home: rig.t.home,
      tcp: { hostname: "127.0.0.1", port: rig.port },
    });
    await banner.waitFor({ state: "detached", timeout: 15_000 });
    assert.equal(await page.evaluate(() => "notReloaded" in globalThis), true);
    await page.getByRole("heading", { name: "Fleet" }).waitFor();
  },
);

browserTest(
  "web app: attention lists a session waiting on a request first and links to it",
  async () => {
    await using rig = await startRig();
    const waiting = await launchAgent(rig.t, await rig.project(), { approvals: "ask" });
    await waitForKind(rig.t, waiting, "agent.permission");
    for (const viewport of [PHONE, DESKTOP]) {
      const page = await rig.page(viewport);
      await rig.pair(page, "read");
      await page.getByRole("link", { name: /^Attention \(1\)$/ }).click();
      assert.equal(new URL(page.url()).hash, "#/attention");
      const item = page.getByRole("listitem", { name: /^approval: / });
      await item.waitFor();
      await screenshot(page, "attention");
      await item.getByRole("link").click();
      assert.equal(new URL(page.url()).hash, `#/s/${waiting}`);
      await page.getByRole("heading", { level: 1 }).waitFor();
    }
  },
);

browserTest(
  "web app: a routine is run now from its card; its result is read in the inbox as text and marked read",
  async () => {
    await using rig = await startRig();
    const project = await rig.project();
    const hostile = `<img src=x onerror="document.title='owned'"> done`;
    await act(rig.t, "svc.automations.create", {
      definition: routineDefinition("nightly", {
        name: "Nightly check",
        status: "ACTIVE",
        runtime: "agent",
        prompt: hostile,
        cwd: project,
        timeoutMinutes: 1,
        outputTarget: { kind: "inbox" },
      }),
    });
    for (const viewport of [PHONE, DESKTOP]) {
      const reader = await rig.page(viewport);
      await rig.pair(reader, "read");
      await reader.getByRole("link", { name: "Routines" }).click();
      const card = reader.getByRole("listitem", { name: "nightly: Nightly check" });
      await card.getByText("ok", { exact: true }).waitFor();
      assert.equal(await card.getByRole("button").count(), 0);
    }
    const page = await rig.page(PHONE);
    await rig.pair(page, "operate");
    await page.goto(`${rig.origin}/#/routines`);
    const card = page.getByRole("listitem", { name: "nightly: Nightly check" });
    await screenshot(page, "routines");
    await card.getByRole("button", { name: "Run nightly now" }).click();
    await page.getByText(/^Run started/).waitFor();
    await card.getByText("succeeded", { exact: true }).waitFor({ timeout: 20_000 });

    for (const viewport of [DESKTOP, PHONE]) {
      const reader = await rig.page(viewport);
      await rig.pair(reader, "read");
      await reader.getByRole("link", { name: "Inbox (1)" }).click();
      const item = reader.getByRole("listitem", { name: /^unread: nightly: / });
      await screenshot(reader, "inbox");
      await item.getByRole("link").click();
      const text = reader.getByRole("region", { name: /^Result of / }).getByLabel("Result");
      await text.getByText(hostile, { exact: false }).first().waitFor();
      assert.equal(await reader.locator("main img").count(), 0);
      assert.notEqual(await reader.title(), "owned");
      await screenshot(reader, "inbox-result");
      if (viewport === PHONE) {
        await reader.getByRole("button", { name: "Mark read" }).click();
        await reader.getByRole("button", { name: "Mark read" }).waitFor({ state: "detached" });
        await reader.getByRole("link", { name: "Back to the inbox" }).click();
        await reader.getByRole("listitem", { name: /^nightly: / }).waitFor();
        await reader.getByRole("link", { name: "Inbox (0)" }).waitFor();
      }
    }
  },
);

browserTest(
  "web app: an isolated session's diff view shows its check and diff, and Land (squash) lands it; read sees no Diff",
  async () => {
    await using rig = await startRig();
    const repo = await gitRepository();
    try {
      const { id, path } = await isolatedSession(rig.t, repo);
      await Deno.writeTextFile(`${path}/a.txt`, "a changed by the agent <b>bold</b>\n");
      const before = (await git(repo, "rev-parse", "HEAD")).trim();

      const reader = await rig.page(PHONE);
      await rig.pair(reader, "read");
      await reader.goto(`${rig.origin}/#/s/${id}`);
      await reader.getByRole("heading", { level: 1 }).waitFor();
      assert.equal(await reader.getByRole("link", { name: "Diff" }).count(), 0);

      const page = await rig.page(DESKTOP);
      await rig.pair(page, "operate");
      await page.goto(`${rig.origin}/#/s/${id}`);
      await page.getByRole("link", { name: "Diff" }).click();
      assert.equal(new URL(page.url()).hash, `#/s/${id}/diff`);
      await page.getByLabel("Land check").getByText(/^Lands cleanly on main/).waitFor();
      const diff = page.getByLabel("Diff", { exact: true });
      await diff.getByText("+a changed by the agent <b>bold</b>", { exact: false }).waitFor();
      assert.equal(await page.locator("main b").count(), 0);
      await screenshot(page, "diff");
      await page.getByRole("button", { name: "Discard" }).click();
      await page.getByRole("group", { name: "Discard?" }).getByText(/never landed/).waitFor();
      await page.getByRole("button", { name: "Keep it" }).click();
      await page.getByRole("button", { name: "Land (squash)" }).click();
      await page.getByText("Landed (squash)").waitFor();
      const after = (await git(repo, "rev-parse", "HEAD")).trim();
      assert.notEqual(after, before);
      assert.equal((await git(repo, "rev-parse", "HEAD~1")).trim(), before);
      assert.equal(
        await Deno.readTextFile(`${repo}/a.txt`),
        "a changed by the agent <b>bold</b>\n",
      );
    } finally {
      await removeTree(repo);
    }
  },
);
