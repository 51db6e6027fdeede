import assert from "node:assert/strict";
import { join } from "node:path";
import {
  codexTomlToDefinition,
  readLegacyRoutines,
  svcJsonToDefinition,
} from "../../src/automations/import_legacy.ts";

const SAMPLES = new URL("../fixtures/codex-automations/", import.meta.url);

/** A temporary `$CODEX_HOME` and `$SVC_HOME/import`, removed after `body`. */
async function withHomes(
  body: (homes: { codexHome: string; svcImportDir: string }) => Promise<void>,
) {
  const root = await Deno.makeTempDir({ prefix: "svc_import_test_" });
  try {
    await body({ codexHome: join(root, "codex"), svcImportDir: join(root, "svc", "import") });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function writeFile(path: string, text: string) {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
}

async function copySample(codexHome: string, id: string): Promise<string> {
  const file = join(codexHome, "automations", id, "automation.toml");
  await writeFile(file, await Deno.readTextFile(new URL(`${id}/automation.toml`, SAMPLES)));
  return file;
}

const CRON = [
  'id = "nightly"',
  'kind = "cron"',
  'name = "Nightly"',
  'prompt = "Run the tests"',
  'status = "ACTIVE"',
  'rrule = "RRULE:FREQ=DAILY;BYHOUR=2"',
].join("\n");

Deno.test("readLegacyRoutines() imports the Codex samples: cron PAUSED, heartbeat skipped", async () => {
  await withHomes(async (homes) => {
    const triage = await copySample(homes.codexHome, "daily-triage");
    const keepGoing = await copySample(homes.codexHome, "keep-going");
    assert.deepEqual(await readLegacyRoutines(homes), [
      {
        outcome: "import",
        file: triage,
        id: "daily-triage",
        definition: {
          schemaVersion: 1,
          id: "daily-triage",
          name: "Daily triage",
          status: "PAUSED",
          rrule: "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0",
          timezone: "local",
          misfire: "latest",
          overlap: "forbid",
          timeoutMinutes: 60,
          runtime: "codex",
          prompt: "Look at the issues opened since yesterday and label them.\nKeep it short.",
          model: "gpt-5.1-codex",
          cwd: "/home/me/code/app",
        },
      },
      { outcome: "skip", file: keepGoing, id: "keep-going", reason: "heartbeat" },
    ]);
  });
});

Deno.test("readLegacyRoutines() fails a cron entry with an unsupported rrule, naming the file", async () => {
  await withHomes(async (homes) => {
    const file = join(homes.codexHome, "automations", "hourly", "automation.toml");
    await writeFile(file, CRON.replace("FREQ=DAILY;BYHOUR=2", "FREQ=HOURLY;INTERVAL=2"));
    const [routine, ...rest] = await readLegacyRoutines(homes);
    assert.deepEqual(rest, []);
    assert.equal(routine.outcome, "fail");
    assert.equal(routine.file, file);
    assert.equal(routine.id, "nightly");
    assert.ok(routine.outcome === "fail" && routine.reason.includes('"FREQ=HOURLY"'));
  });
});

Deno.test("readLegacyRoutines() imports a cron entry without cwds without cwd", async () => {
  await withHomes(async (homes) => {
    await writeFile(join(homes.codexHome, "automations", "nightly", "automation.toml"), CRON);
    const [routine] = await readLegacyRoutines(homes);
    assert.equal(routine.outcome, "import");
    assert.ok(routine.outcome === "import");
    assert.equal("cwd" in routine.definition, false);
    assert.equal(routine.definition.status, "PAUSED");
    assert.equal(routine.definition.rrule, "RRULE:FREQ=DAILY;BYHOUR=2");
  });
});

Deno.test("readLegacyRoutines() fails a broken TOML file with its path", async () => {
  await withHomes(async (homes) => {
    const file = join(homes.codexHome, "automations", "broken", "automation.toml");
    await writeFile(file, 'id = "broken"\nname = "unterminated\n');
    const routines = await readLegacyRoutines(homes);
    assert.equal(routines.length, 1);
    assert.equal(routines[0].outcome, "fail");
    assert.equal(routines[0].file, file);
    assert.equal(routines[0].id, null);
    assert.ok(routines[0].outcome === "fail" && routines[0].reason.startsWith("Cannot parse TOML"));
  });
});

Deno.test("readLegacyRoutines() fills a legacy JSON definition and forces PAUSED", async () => {
  await withHomes(async (homes) => {
    const file = join(homes.svcImportDir, "legacy.json");
    const legacy = {
      id: "legacy",
      name: "Legacy",
      status: "ACTIVE",
      rrule: "FREQ=DAILY;BYHOUR=7",
      timezone: "utc",
      timeoutMinutes: 30,
      runtime: "claude",
      prompt: "Summarise",
      tags: ["old"],
    };
    await writeFile(file, JSON.stringify(legacy));
    assert.deepEqual(await readLegacyRoutines(homes), [{
      outcome: "import",
      file,
      id: "legacy",
      definition: {
        ...legacy,
        schemaVersion: 1,
        misfire: "latest",
        overlap: "forbid",
        status: "PAUSED",
      },
    }]);
  });
});

Deno.test("readLegacyRoutines() fails a JSON definition with a bad field naming it", async (t) => {
  const base = {
    schemaVersion: 1,
    id: "bad",
    name: "Bad",
    status: "PAUSED",
    rrule: "FREQ=DAILY;BYHOUR=7",
    timezone: "utc",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 30,
    runtime: "claude",
    prompt: "Summarise",
  };
  const cases: [string, Record<string, unknown>, string][] = [
    ["timeoutMinutes", { timeoutMinutes: 0 }, '"timeoutMinutes"'],
    ["schemaVersion", { schemaVersion: 2 }, '"schemaVersion"'],
    ["misfire", { misfire: "all" }, '"misfire"'],
    ["unknown key", { bogus: 1 }, '"bogus"'],
    ["rrule", { rrule: "FREQ=DAILY;BYHOUR=7;COUNT=3" }, '"COUNT=3"'],
  ];
  for (const [name, patch, fragment] of cases) {
    await t.step(name, async () => {
      await withHomes(async (homes) => {
        const file = join(homes.svcImportDir, "bad.json");
        await writeFile(file, JSON.stringify({ ...base, ...patch }));
        const [routine] = await readLegacyRoutines(homes);
        assert.equal(routine.outcome, "fail");
        assert.equal(routine.file, file);
        assert.equal(routine.id, "bad");
        assert.ok(routine.outcome === "fail" && routine.reason.includes(fragment), routine.reason);
      });
    });
  }
});

Deno.test("readLegacyRoutines() fails unparsable or non-object JSON", async () => {
  await withHomes(async (homes) => {
    await writeFile(join(homes.svcImportDir, "a.json"), "{ not json");
    await writeFile(join(homes.svcImportDir, "b.json"), "[1, 2]");
    const routines = await readLegacyRoutines(homes);
    assert.deepEqual(routines.map((routine) => [routine.outcome, routine.id]), [
      ["fail", null],
      ["fail", null],
    ]);
    assert.ok(routines[0].outcome === "fail" && routines[0].reason.startsWith("Cannot parse JSON"));
    assert.ok(routines[1].outcome === "fail" && routines[1].reason.includes("object"));
  });
});

Deno.test("readLegacyRoutines() finds nothing in missing directories", async () => {
  await withHomes(async (homes) => {
    assert.deepEqual(await readLegacyRoutines(homes), []);
  });
});

Deno.test("readLegacyRoutines() ignores other files and sorts each source by path", async () => {
  await withHomes(async (homes) => {
    const automations = join(homes.codexHome, "automations");
    await writeFile(join(automations, "b", "automation.toml"), CRON.replace("nightly", "b"));
    await writeFile(join(automations, "a", "automation.toml"), CRON.replace("nightly", "a"));
    await writeFile(join(automations, "empty", "notes.txt"), "no automation here");
    await writeFile(join(automations, "README.md"), "not a directory");
    const json = {
      name: "J",
      status: "ACTIVE",
      rrule: "FREQ=DAILY;BYHOUR=7",
      timezone: "utc",
      timeoutMinutes: 5,
      runtime: "claude",
      prompt: "P",
    };
    await writeFile(join(homes.svcImportDir, "z.json"), JSON.stringify({ ...json, id: "z" }));
    await writeFile(join(homes.svcImportDir, "y.json"), JSON.stringify({ ...json, id: "y" }));
    await writeFile(join(homes.svcImportDir, "x.txt"), "ignored");
    await Deno.mkdir(join(homes.svcImportDir, "dir.json"));
    const routines = await readLegacyRoutines(homes);
    assert.deepEqual(routines.map((routine) => [routine.outcome, routine.id]), [
      ["import", "a"],
      ["import", "b"],
      ["import", "y"],
      ["import", "z"],
    ]);
  });
});

Deno.test("readLegacyRoutines() never modifies its sources", async () => {
  await withHomes(async (homes) => {
    const triage = await copySample(homes.codexHome, "daily-triage");
    const json = join(homes.svcImportDir, "bad.json");
    await writeFile(json, '{"id": "bad"}');
    const before = await Promise.all([triage, json].map((file) => Deno.stat(file)));
    const texts = await Promise.all([triage, json].map((file) => Deno.readTextFile(file)));
    await readLegacyRoutines(homes);
    await readLegacyRoutines(homes);
    const after = await Promise.all([triage, json].map((file) => Deno.stat(file)));
    assert.deepEqual(after.map((stat) => stat.mtime), before.map((stat) => stat.mtime));
    assert.deepEqual(
      await Promise.all([triage, json].map((file) => Deno.readTextFile(file))),
      texts,
    );
  });
});

Deno.test("codexTomlToDefinition() maps kinds and cwds", async (t) => {
  const file = "/codex/automations/entry/automation.toml";
  const cron = {
    id: "entry",
    kind: "cron",
    name: "Entry",
    prompt: "Go",
    status: "ACTIVE",
    rrule: "FREQ=DAILY;BYHOUR=9",
  };
  await t.step("cron with cwds takes the first", () => {
    const routine = codexTomlToDefinition({ ...cron, cwds: ["/a", "/b"] }, file);
    assert.ok(routine.outcome === "import");
    assert.equal(routine.definition.cwd, "/a");
    assert.equal(routine.definition.status, "PAUSED");
  });
  await t.step("cron with empty cwds has no cwd", () => {
    const routine = codexTomlToDefinition({ ...cron, cwds: [] }, file);
    assert.ok(routine.outcome === "import");
    assert.equal(routine.definition.cwd, undefined);
  });
  await t.step("cwds that are not strings fail", () => {
    const routine = codexTomlToDefinition({ ...cron, cwds: "/a" }, file);
    assert.deepEqual(routine, {
      outcome: "fail",
      file,
      id: "entry",
      reason: 'Invalid "cwds": expected an array of strings',
    });
  });
  await t.step("a relative first cwd fails", () => {
    const routine = codexTomlToDefinition({ ...cron, cwds: ["code/app"] }, file);
    assert.ok(routine.outcome === "fail" && routine.reason.includes('"cwd"'));
  });
  await t.step("a heartbeat is skipped, named by its directory when it has no id", () => {
    assert.deepEqual(codexTomlToDefinition({ kind: "heartbeat" }, file), {
      outcome: "skip",
      file,
      id: "entry",
      reason: "heartbeat",
    });
  });
  await t.step("an unknown kind fails", () => {
    const routine = codexTomlToDefinition({ ...cron, kind: "webhook" }, file);
    assert.ok(routine.outcome === "fail" && routine.reason.includes('"webhook"'));
  });
  await t.step("a missing name fails naming it", () => {
    const routine = codexTomlToDefinition({ ...cron, name: undefined }, file);
    assert.ok(routine.outcome === "fail" && routine.reason.includes('"name"'));
  });
});

Deno.test("svcJsonToDefinition() keeps explicit values and forces PAUSED", () => {
  const routine = svcJsonToDefinition({
    schemaVersion: 1,
    id: "j",
    name: "J",
    status: "ACTIVE",
    rrule: "FREQ=WEEKLY;BYDAY=SU;BYHOUR=23",
    timezone: "local",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 44640,
    runtime: "gemini",
    prompt: "P",
    outputTarget: { kind: "file", path: "/abs/results" },
  }, "/svc/import/j.json");
  assert.ok(routine.outcome === "import");
  assert.equal(routine.definition.status, "PAUSED");
  assert.deepEqual(routine.definition.outputTarget, { kind: "file", path: "/abs/results" });
});
