/** Event reads, floods, redaction and raw artifacts end to end (C4.2, D8, D9). */
import assert from "node:assert/strict";
import { allEvents, fixtureHarnesses, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";

type Json = Record<string, unknown>;
type Page = { events: Array<Json>; nextCursor: { afterSeq: number }; hasMore: boolean };
const errorOf = (body: unknown) => (body as { error: { code: string; details: Json } }).error;

async function launch(
  t: Awaited<ReturnType<typeof startTestDaemon>>,
  project: string,
  prompt: string,
): Promise<string> {
  const response = await t.client.post<Json>("/sessions", {
    projectRoot: project,
    harness: "fixture",
    prompt,
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.id as string;
}

Deno.test("10 000 mixed stdout/stderr lines arrive complete, in order, gap-free (D8)", async () => {
  const project = await tempHome();
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  const id = await launch(t, project, "flood 10000");
  await waitForEnd(t.client, id, 60_000);
  const events = await allEvents(t.client, id);
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
  for (const stream of ["stdout", "stderr"]) {
    const text = events
      .filter((e) => e.kind === "output" && e.payload.stream === stream)
      .map((e) => e.payload.data)
      .join("");
    const expected = Array.from(
      { length: 5000 },
      (_, i) => `line ${stream === "stdout" ? 2 * i : 2 * i + 1}\n`,
    )
      .join("");
    assert.equal(text, expected, `${stream} complete and in order`);
  }
  for (const event of events) {
    if (event.kind === "output") {
      assert.ok(new TextEncoder().encode(event.payload.data as string).length <= 65536);
    }
  }
  await removeTree(project);
});

Deno.test("cursors: afterSeq wins, afterEventId resolves, limit clamps, hasMore (C4.2)", async () => {
  const project = await tempHome();
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  const id = await launch(t, project, "out a; sleep 30; out b; sleep 30; out c; sleep 30; out d");
  await waitForEnd(t.client, id);
  const events = await allEvents(t.client, id);
  const total = events.length;
  assert.ok(total >= 6);
  const page = (query: string) => t.client.get<Page>(`/sessions/${id}/events${query}`);

  const first = await page("?limit=2");
  assert.deepEqual(first.body.events.map((e) => e.seq), [1, 2]);
  assert.deepEqual(first.body.nextCursor, { afterSeq: 2 });
  assert.equal(first.body.hasMore, true);
  const next = await page(`?afterSeq=${first.body.nextCursor.afterSeq}&limit=1000`);
  assert.equal(next.body.events[0].seq, 3);
  assert.equal(next.body.hasMore, false);

  const byId = await page(`?afterEventId=${events[2].id}`);
  assert.equal(byId.body.events[0].seq, 4);
  const both = await page(`?afterEventId=${events[2].id}&afterSeq=1`);
  assert.equal(both.body.events[0].seq, 2, "afterSeq wins over afterEventId");
  const unknownId = await page("?afterEventId=evt_unknown");
  assert.equal(unknownId.body.events.length, total, "an unknown id reads from the start");

  const clampedLow = await page("?limit=0");
  assert.equal(clampedLow.body.events.length, 1);
  const clampedHigh = await page("?limit=99999");
  assert.equal(clampedHigh.body.events.length, total);
  const past = await page(`?afterSeq=${total + 10}`);
  assert.deepEqual(past.body, { events: [], nextCursor: { afterSeq: total + 10 }, hasMore: false });

  for (
    const query of ["?afterSeq=abc", "?afterSeq=1.5", "?afterSeq=-1", "?limit=ten", "?limit=2.5"]
  ) {
    const bad = await page(query);
    assert.equal(bad.status, 400, query);
    assert.equal(errorOf(bad.body).code, "invalid_request", query);
  }
  const missing = await t.client.get("/events");
  assert.equal(missing.status, 400);
  assert.equal(errorOf(missing.body).details.field, "sessionId");
  const unknown = await t.client.get("/events?sessionId=ses_nope");
  assert.equal(unknown.status, 404);
  assert.equal(errorOf(unknown.body).code, "session_not_found");
  const unknownPath = await t.client.get("/sessions/ses_nope/events");
  assert.equal(unknownPath.status, 404);
  await removeTree(project);
});

Deno.test("waitMs long-polls until the next event is durable (D8)", async () => {
  const project = await tempHome();
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  const id = await launch(t, project, "out first; sleep 400; out second; sleep 400");
  let cursor = 0;
  let seen = "";
  while (!seen.includes("second")) {
    const response = await t.client.get<Page>(
      `/sessions/${id}/events?afterSeq=${cursor}&waitMs=5000`,
    );
    assert.equal(response.status, 200);
    for (const event of response.body.events) {
      if (event.kind === "output") seen += JSON.parse(event.payload_json as string).data;
    }
    assert.ok(response.body.events.length > 0, "a long-poll returns with events, not empty");
    cursor = response.body.nextCursor.afterSeq;
  }
  await waitForEnd(t.client, id);
  // On an ended session a long-poll returns at once with an empty page.
  const done = await t.client.get<Page>(`/sessions/${id}/events?afterSeq=9999&waitMs=30000`);
  assert.deepEqual(done.body.events, []);
  const badWait = await t.client.get(`/sessions/${id}/events?waitMs=soon`);
  assert.equal(badWait.status, 400);
  await removeTree(project);
});

Deno.test("secrets are redacted before storage, even split across writes (D9)", async () => {
  const project = await tempHome();
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  const key = "ghp_" + "Z".repeat(36);
  const id = await launch(
    t,
    project,
    `part export GITHUB_TOKEN=${key.slice(0, 10)}; sleep 150; part ${
      key.slice(10)
    }; out ; out aws AKIA${"Q".repeat(16)} end`,
  );
  await waitForEnd(t.client, id);
  const output = (await allEvents(t.client, id)).filter((e) => e.kind === "output").map((e) =>
    e.payload.data
  ).join("");
  assert.ok(!output.includes("Z".repeat(20)), output);
  assert.ok(!output.includes("Q".repeat(16)), output);
  assert.match(output, /\[REDACTED:/);
  // The store holds only redacted text.
  const db = await Deno.readFile(`${t.home}/svc.db`);
  const wal = await Deno.readFile(`${t.home}/svc.db-wal`).catch(() => new Uint8Array());
  for (const bytes of [db, wal]) {
    assert.ok(!new TextDecoder("latin1").decode(bytes).includes(key));
  }
  // The title (the prompt's first line) is redacted too.
  const record = await t.client.get<Json>(`/sessions/${id}`);
  assert.ok(!(record.body.title as string).includes(key.slice(0, 10)), record.body.title as string);
  // A first write with nothing of a secret in it is held as bytes; the write that completes the
  // literal ("TO" + "KEN") still gets the whole line redacted.
  const split = await launch(
    t,
    project,
    `out clean line; part export GITHUB_TO; sleep 150; part KEN=${key}; out ; out clean again`,
  );
  await waitForEnd(t.client, split);
  const splitOutput = (await allEvents(t.client, split)).filter((e) => e.kind === "output")
    .map((e) => e.payload.data).join("");
  assert.equal(
    splitOutput,
    "clean line\nexport GITHUB_TOKEN=[REDACTED:assignment]\nclean again\n",
  );
  await removeTree(project);
});

Deno.test("a multi-byte character split across writes is joined (D8)", async () => {
  const project = await tempHome();
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  // "é€😀\n" written one byte at a time, 20 ms apart.
  const id = await launch(t, project, "bytes c3,a9,e2,82,ac,f0,9f,98,80,0a,ff,0a");
  await waitForEnd(t.client, id);
  const output = (await allEvents(t.client, id)).filter((e) => e.kind === "output").map((e) =>
    e.payload.data
  ).join("");
  assert.equal(output, "é€😀\n\uFFFD\n");
  await removeTree(project);
});

Deno.test("raw artifacts: D9's checks in order, and the unredacted output when enabled", async (t) => {
  const project = await tempHome();
  const key = "sk-ant-api03-" + "k".repeat(40) + "1";
  await t.step("persistence off", async () => {
    await using d = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
    const id = await launch(d, project, `out ${key}`);
    await waitForEnd(d.client, id);
    const off = await d.client.get(`/sessions/${id}/artifacts/output?raw=1`);
    assert.equal(off.status, 403);
    assert.equal(errorOf(off.body).code, "raw_artifacts_disabled");
  });
  await t.step("persistence on", async () => {
    const port = (() => {
      const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const p = (l.addr as Deno.NetAddr).port;
      l.close();
      return p;
    })();
    await using d = await startTestDaemon({
      configJson: { harnesses: fixtureHarnesses(), rawArtifacts: true },
      tcp: { hostname: "127.0.0.1", port },
    });
    const id = await launch(d, project, `out ${key}`);
    await waitForEnd(d.client, id);
    const tcp = await rawHttp(
      { hostname: "127.0.0.1", port },
      httpRequest("GET", `/api/v1/sessions/${id}/artifacts/output?raw=1`, {
        host: `127.0.0.1:${port}`,
      }),
    );
    assert.equal(tcp.status, 403);
    assert.equal(errorOf(tcp.body).code, "forbidden");
    const noFlag = await d.client.get(`/sessions/${id}/artifacts/output`);
    assert.equal(noFlag.status, 400);
    assert.equal(errorOf(noFlag.body).code, "raw_artifact_requires_raw_flag");
    const noSession = await d.client.get(`/sessions/ses_nope/artifacts/output?raw=1`);
    assert.equal(noSession.status, 404);
    assert.equal(errorOf(noSession.body).code, "session_not_found");
    const noArtifact = await d.client.get(`/sessions/${id}/artifacts/other?raw=1`);
    assert.equal(noArtifact.status, 404);
    assert.equal(errorOf(noArtifact.body).code, "artifact_not_found");
    const raw = await d.client.get<{ artifact: Json }>(`/sessions/${id}/artifacts/output?raw=1`);
    assert.equal(raw.status, 200);
    assert.deepEqual(raw.body.artifact, {
      id: "output",
      sessionId: id,
      bytes: key.length + 1,
      offset: 0,
      length: key.length + 1,
      nextOffset: null,
      encoding: "utf-8",
      data: key + "\n",
    });
    const file = await Deno.stat(`${d.home}/artifacts/${id}/output`);
    assert.equal(file.mode! & 0o777, 0o600);
    // The event log still holds only the redacted text.
    const output = (await allEvents(d.client, id)).filter((e) => e.kind === "output").map((e) =>
      e.payload.data
    ).join("");
    assert.ok(!output.includes(key));
  });
  await removeTree(project);
});
