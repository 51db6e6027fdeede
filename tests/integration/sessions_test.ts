/** Sessions and the event log end to end through the real socket (issue 3, D7, D8, D9). */
import assert from "node:assert/strict";
import { allEvents, fixtureHarnesses, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

type Json = Record<string, unknown>;
const errorOf = (body: unknown) => (body as { error: { code: string; details: Json } }).error;

async function withProject<T>(fn: (project: string) => Promise<T>): Promise<T> {
  const project = await Deno.realPath(await tempHome());
  try {
    return await fn(project);
  } finally {
    await removeTree(project);
  }
}

Deno.test("a session runs, records ordered events and ends completed (D7, D8)", async () => {
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  await withProject(async (project) => {
    const launched = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "out hello; err oops; exit 0",
    });
    assert.equal(launched.status, 201, JSON.stringify(launched.body));
    const record = launched.body;
    assert.match(record.id as string, /^ses_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(record.status, "running");
    assert.equal(record.project_root, project);
    assert.equal(record.cwd, project);
    assert.equal(record.title, "out hello; err oops; exit 0");
    assert.equal(record.origin, "api");
    assert.equal(typeof record.pid, "number");
    assert.ok(!("pgid" in record));

    const ended = await waitForEnd(t.client, record.id as string);
    assert.equal(ended.status, "completed");
    assert.equal(ended.exit_code, 0);
    assert.equal(typeof ended.ended_at, "string");

    const events = await allEvents(t.client, record.id as string);
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
    assert.equal(events[0].kind, "session.started");
    assert.equal(events[0].payload.harness, "fixture");
    assert.equal(events.at(-1)!.kind, "session.ended");
    assert.deepEqual(events.at(-1)!.payload, { status: "completed", exitCode: 0, signal: null });
    const output = events.filter((e) => e.kind === "output");
    assert.deepEqual(
      output.map((e) => [e.payload.stream, e.payload.data]).sort(),
      [["stderr", "oops\n"], ["stdout", "hello\n"]],
    );
    assert.equal(ended.last_seq, events.length);

    // Both read routes serve the same page; the list shows the session.
    const viaQuery = await t.client.get<Json>(`/events?sessionId=${record.id}`);
    const viaPath = await t.client.get<Json>(`/sessions/${record.id}/events`);
    assert.deepEqual(viaQuery.body, viaPath.body);
    assert.deepEqual(viaPath.body.nextCursor, { afterSeq: events.length });
    assert.equal(viaPath.body.hasMore, false);
    const list = await t.client.get<Json[]>("/sessions?status=completed");
    assert.equal(list.body[0].id, record.id);
  });
});

Deno.test("a failing exit code ends failed; an unstartable program ends failed with launch_failed", async () => {
  await withProject(async (project) => {
    const notExecutable = `${project}/not-executable`;
    await Deno.writeTextFile(notExecutable, "#!/bin/sh\necho hi\n");
    await using t = await startTestDaemon({
      configJson: {
        harnesses: { ...fixtureHarnesses(), broken: { command: [notExecutable], prompt: "none" } },
      },
    });
    const launched = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "out bye; exit 3",
    });
    const ended = await waitForEnd(t.client, launched.body.id as string);
    assert.equal(ended.status, "failed");
    assert.equal(ended.exit_code, 3);

    const broken = await t.client.post("/sessions", {
      projectRoot: project,
      harness: "broken",
      prompt: "x",
    });
    assert.equal(broken.status, 500);
    const error = errorOf(broken.body);
    assert.equal(error.code, "launch_failed");
    const row = await t.client.get<Json>(`/sessions/${error.details.sessionId}`);
    assert.equal(row.body.status, "failed");
    const events = await allEvents(t.client, error.details.sessionId as string);
    assert.equal(events.at(-1)!.kind, "session.ended");
    assert.equal(events.at(-1)!.payload.status, "failed");
  });
});

Deno.test("launch validation: harness, paths, sessionPolicy, unknown keys (D7)", async () => {
  await withProject(async (project) => {
    await Deno.mkdir(`${project}/pkg`);
    const outside = await Deno.realPath(await tempHome());
    await Deno.symlink(outside, `${project}/escape`);
    await Deno.writeTextFile(`${project}/file.txt`, "x");
    await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
    const base = { projectRoot: project, harness: "fixture", prompt: "exit 0" };
    const cases: Array<[string, Json, number, string, string | undefined]> = [
      ["unknown harness", { ...base, harness: "nope" }, 400, "invalid_request", "harness"],
      ["disabled built-in", { ...base, harness: "claude" }, 400, "invalid_request", "harness"],
      ["relative root", { ...base, projectRoot: "rel/dir" }, 400, "invalid_request", "projectRoot"],
      [
        "missing root",
        { ...base, projectRoot: `${project}/nope` },
        400,
        "invalid_request",
        "projectRoot",
      ],
      [
        "root is a file",
        { ...base, projectRoot: `${project}/file.txt` },
        400,
        "invalid_request",
        "projectRoot",
      ],
      ["cwd with ..", { ...base, cwd: `${project}/pkg/../..` }, 400, "invalid_request", "cwd"],
      ["cwd symlink escape", { ...base, cwd: `${project}/escape` }, 400, "invalid_request", "cwd"],
      ["cwd outside", { ...base, cwd: outside }, 400, "invalid_request", "cwd"],
      [
        "sessionPolicy null",
        { ...base, sessionPolicy: null },
        400,
        "invalid_request",
        "sessionPolicy",
      ],
      ["unknown key", { ...base, bogus: 1 }, 400, "invalid_request", "bogus"],
      ["empty prompt", { ...base, prompt: "" }, 400, "invalid_request", "prompt"],
      [
        "prompt too big",
        { ...base, prompt: "x".repeat(256 * 1024 + 1) },
        400,
        "invalid_request",
        "prompt",
      ],
      ["model too long", { ...base, model: "m".repeat(65) }, 400, "invalid_request", "model"],
      ["not an object", [] as unknown as Json, 400, "invalid_request", undefined],
    ];
    for (const [name, body, status, code, field] of cases) {
      const response = await t.client.post("/sessions", body);
      assert.equal(response.status, status, name);
      assert.equal(errorOf(response.body).code, code, name);
      assert.equal(errorOf(response.body).details.field, field, name);
    }
    // A cwd inside the root (relative or absolute) is accepted.
    const ok = await t.client.post<Json>("/sessions", { ...base, cwd: "pkg" });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.cwd, `${project}/pkg`);
    await waitForEnd(t.client, ok.body.id as string);
    // Nothing was launched by the refused requests.
    assert.equal((await t.client.get<Json[]>("/sessions")).body.length, 1);
    await removeTree(outside);
  });
});

Deno.test("projectRoots allowlist is enforced after realpath (D3)", async () => {
  await withProject(async (allowed) => {
    const other = await Deno.realPath(await tempHome());
    await using t = await startTestDaemon({
      configJson: { harnesses: fixtureHarnesses(), projectRoots: [allowed] },
    });
    await Deno.mkdir(`${allowed}/repo`);
    const inside = await t.client.post<Json>("/sessions", {
      projectRoot: `${allowed}/repo`,
      harness: "fixture",
      prompt: "exit 0",
    });
    assert.equal(inside.status, 201);
    await waitForEnd(t.client, inside.body.id as string);
    const outside = await t.client.post("/sessions", {
      projectRoot: other,
      harness: "fixture",
      prompt: "exit 0",
    });
    assert.equal(outside.status, 400);
    assert.equal(errorOf(outside.body).details.field, "projectRoot");
    await removeTree(other);
  });
});

Deno.test("input reaches stdin, is recorded, and is refused once the session ended (D7)", async () => {
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  await withProject(async (project) => {
    const launched = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture-stdin",
      prompt: "ignored",
    });
    const id = launched.body.id as string;
    const sent = await t.client.post(`/sessions/${id}/input`, { data: "hello\n" });
    assert.deepEqual(sent.body, { ok: true, accepted: true });
    await t.client.post(`/sessions/${id}/input`, {
      data: "token=ghp_" + "a".repeat(36) + "\nquit\n",
    });
    const ended = await waitForEnd(t.client, id);
    assert.equal(ended.status, "completed");
    const events = await allEvents(t.client, id);
    const inputs = events.filter((e) => e.kind === "input").map((e) => e.payload.data as string);
    assert.equal(inputs[0], "hello\n");
    assert.ok(!inputs[1].includes("a".repeat(36)), inputs[1]);
    const output = events.filter((e) => e.kind === "output").map((e) => e.payload.data).join("");
    assert.ok(output.includes("got: hello"));

    const late = await t.client.post(`/sessions/${id}/input`, { data: "x" });
    assert.equal(late.status, 409);
    assert.equal(errorOf(late.body).code, "session_not_live");
    const kill = await t.client.post(`/sessions/${id}/kill`, {});
    assert.equal(kill.status, 409);
    assert.equal(errorOf(kill.body).code, "session_not_live");
    const unknown = await t.client.post(`/sessions/ses_nope/input`, { data: "x" });
    assert.equal(unknown.status, 404);
    assert.equal(errorOf(unknown.body).code, "session_not_found");
    const badInput = await t.client.post(`/sessions/${id}/input`, { data: 1 });
    assert.equal(badInput.status, 400);
  });
});

function processGone(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

Deno.test("kill ends the whole process group, grandchild included, as killed (D7)", async () => {
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  await withProject(async (project) => {
    const launched = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "grandchild; sleep 60000",
    });
    const id = launched.body.id as string;
    let grandchild = 0;
    for (let i = 0; i < 400 && grandchild === 0; i++) {
      const output = (await allEvents(t.client, id)).filter((e) => e.kind === "output");
      const match = /grandchild (\d+)/.exec(output.map((e) => e.payload.data).join(""));
      if (match) grandchild = Number(match[1]);
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.ok(grandchild > 0, "the grandchild reported its pid");
    const killed = await t.client.post(`/sessions/${id}/kill`, { signal: "SIGTERM" });
    assert.deepEqual(killed.body, { ok: true, accepted: true });
    const ended = await waitForEnd(t.client, id);
    assert.equal(ended.status, "killed");
    // The grandchild ignores SIGTERM: it dies by the SIGKILL escalation.
    for (let i = 0; i < 300 && !processGone(grandchild); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(processGone(grandchild), `grandchild ${grandchild} survived`);
    const bad = await t.client.post(`/sessions/${id}/kill`, { signal: "SIGHUP" });
    assert.equal(bad.status, 400);
  });
});

Deno.test("contextAdmission: valid → 503 and nothing runs; invalid → 400; on kill → 400 (C4.3, D11)", async () => {
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  await withProject(async (project) => {
    const intent = {
      version: 1,
      sources: [{ kind: "file", ref: "README.md", digest: "sha256:" + "0".repeat(64) }],
    };
    const refused = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "exit 0",
      contextAdmission: intent,
    });
    assert.equal(refused.status, 503);
    assert.equal(refused.body.accepted, false);
    assert.equal(refused.body.receiptIssued, false);
    assert.equal(errorOf(refused.body).code, "context_admission_unavailable");
    assert.equal((await t.client.get<Json[]>("/sessions")).body.length, 0);

    const invalid = await t.client.post("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "exit 0",
      contextAdmission: { version: 2, sources: [] },
    });
    assert.equal(invalid.status, 400);
    assert.equal(errorOf(invalid.body).details.field, "contextAdmission.version");

    const live = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture-stdin",
      prompt: "x",
    });
    const id = live.body.id as string;
    const onInput = await t.client.post(`/sessions/${id}/input`, {
      data: "x\n",
      contextAdmission: intent,
    });
    assert.equal(onInput.status, 503);
    const onKill = await t.client.post(`/sessions/${id}/kill`, { contextAdmission: intent });
    assert.equal(onKill.status, 400);
    const events = await allEvents(t.client, id);
    assert.equal(
      events.filter((e) => e.kind === "input").length,
      0,
      "refused input executed nothing",
    );
    await t.client.post(`/sessions/${id}/kill`, {});
    await waitForEnd(t.client, id);
  });
});

Deno.test("maxLiveSessions refuses more live sessions with 429 too_many_sessions (D3)", async () => {
  await using t = await startTestDaemon({
    configJson: { harnesses: fixtureHarnesses(), maxLiveSessions: 1 },
  });
  await withProject(async (project) => {
    const first = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture-stdin",
      prompt: "x",
    });
    assert.equal(first.status, 201);
    const second = await t.client.post("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "exit 0",
    });
    assert.equal(second.status, 429);
    assert.equal(errorOf(second.body).code, "too_many_sessions");
    assert.equal(errorOf(second.body).details.limit, 1);
    await t.client.post(`/sessions/${first.body.id}/input`, { data: "quit\n" });
    await waitForEnd(t.client, first.body.id as string);
    const third = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "exit 0",
    });
    assert.equal(third.status, 201);
    await waitForEnd(t.client, third.body.id as string);
  });
});

Deno.test("a graceful stop ends live sessions as killed (D7)", async () => {
  const t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  const project = await Deno.realPath(await tempHome());
  const launched = await t.client.post<Json>("/sessions", {
    projectRoot: project,
    harness: "fixture-stdin",
    prompt: "x",
  });
  const id = launched.body.id as string;
  t.client.close();
  await t.daemon.stop();
  const restarted = await startTestDaemon({ home: t.home });
  const record = await restarted.client.get<Json>(`/sessions/${id}`);
  assert.equal(record.body.status, "killed");
  await restarted[Symbol.asyncDispose]();
  await removeTree(t.home);
  await removeTree(project);
});

Deno.test("input to a child that never reads stdin is queued, then refused, never hangs (D7)", async () => {
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  await withProject(async (project) => {
    const launched = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "sleep 60000",
    });
    const id = launched.body.id as string;
    const chunk = "x".repeat(400 * 1024);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await t.client.post(`/sessions/${id}/input`, { data: chunk })).status);
    }
    // The pipe takes some bytes, the queue takes up to 1 MiB, then input is refused.
    assert.equal(statuses[0], 200);
    assert.ok(statuses.includes(409), JSON.stringify(statuses));
    const refused = await t.client.post(`/sessions/${id}/input`, { data: chunk });
    assert.equal(errorOf(refused.body).code, "session_input_backlogged");
    await t.client.post(`/sessions/${id}/kill`, { signal: "SIGKILL" });
    assert.equal((await waitForEnd(t.client, id)).status, "killed");
  });
});
