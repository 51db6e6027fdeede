import assert from "node:assert/strict";
import {
  pathCandidates,
  probeAll,
  probeHarness,
  type ProgramProber,
  readVersion,
  systemProber,
} from "../../src/sessions/harness_probe.ts";
import { buildRegistry, type HarnessSpec } from "../../src/sessions/harnesses.ts";
import { HANG_MS, withinHang } from "../helpers/hang.ts";

const unix = Deno.build.os !== "windows";
const linux = Deno.build.os === "linux";
/** Deno 2.9 leaves the ops sanitizer off by default; it is what catches a leaked timer or child. */
const sanitize = { sanitizeOps: true, sanitizeResources: true };

function spec(command: string[], builtin: boolean): HarnessSpec {
  return {
    id: "tool",
    label: "Tool",
    builtin,
    command,
    prompt: "arg",
    protocol: "raw",
    versionArgs: builtin ? ["--version"] : null,
    probeEnv: {},
  };
}

/** A prober answering from tables, recording the version probes it ran. */
function fakeProber(paths: Record<string, string>, versions: Record<string, boolean>) {
  const versionCalls: Array<[string, string[], number]> = [];
  const prober: ProgramProber = {
    find: (program) => Promise.resolve(paths[program] ?? null),
    runVersion: (path, args, { timeoutMs }) => {
      versionCalls.push([path, args, timeoutMs]);
      return Promise.resolve(versions[path] ?? false);
    },
  };
  return { prober, versionCalls };
}

Deno.test("probeHarness() decides the status from find and the version probe", async (t) => {
  const { prober, versionCalls } = fakeProber(
    { good: "/bin/good", broken: "/bin/broken" },
    { "/bin/good": true, "/bin/broken": false },
  );
  const cases: Array<[string, HarnessSpec, string, string | null, number]> = [
    ["built-in found, version ok", spec(["good"], true), "enabled", "/bin/good", 1],
    ["built-in found, version fails", spec(["broken"], true), "degraded", "/bin/broken", 1],
    ["built-in missing", spec(["missing"], true), "disabled", null, 0],
    ["configured found", spec(["broken"], false), "enabled", "/bin/broken", 0],
    ["configured missing", spec(["missing"], false), "disabled", null, 0],
  ];
  for (const [name, harness, status, path, probes] of cases) {
    await t.step(name, async () => {
      versionCalls.length = 0;
      assert.deepEqual(await probeHarness(harness, prober, { timeoutMs: 1234, versions: true }), {
        status,
        path,
      });
      assert.equal(versionCalls.length, probes);
    });
  }
  await t.step("passes the version args and the timeout", async () => {
    versionCalls.length = 0;
    await probeHarness(spec(["good", "--", "{prompt}"], true), prober, {
      timeoutMs: 1234,
      versions: true,
    });
    assert.deepEqual(versionCalls, [["/bin/good", ["--version"], 1234]]);
  });
});

Deno.test("probeAll() probes every harness concurrently", async () => {
  const registry = buildRegistry({ echo: { command: ["python3"], prompt: "stdin" } });
  let running = 0;
  let maxRunning = 0;
  const prober: ProgramProber = {
    find: async (program) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
      return program === "codex" || program === "python3" ? `/usr/bin/${program}` : null;
    },
    runVersion: () => Promise.resolve(false),
  };
  const results = await probeAll(registry, prober, { timeoutMs: 100, versions: true });
  assert.equal(maxRunning, registry.size);
  assert.deepEqual(Object.fromEntries(results), {
    claude: { status: "disabled", path: null },
    codex: { status: "degraded", path: "/usr/bin/codex" },
    gemini: { status: "disabled", path: null },
    opencode: { status: "disabled", path: null },
    echo: { status: "enabled", path: "/usr/bin/python3" },
  });
});

Deno.test("pathCandidates() lists PATH directories in order, skipping relative ones", () => {
  assert.deepEqual(pathCandidates("claude", { PATH: "/a:relative::/b/" }, false), [
    "/a/claude",
    "/b/claude",
  ]);
  assert.deepEqual(pathCandidates("claude", {}, false), []);
});

Deno.test("pathCandidates() tries PATHEXT extensions on Windows", () => {
  assert.deepEqual(
    pathCandidates("claude", { PATH: "C:\\bin;rel;D:\\tools", PATHEXT: ".EXE;.CMD" }, true),
    [
      "C:\\bin\\claude.EXE",
      "C:\\bin\\claude.CMD",
      "D:\\tools\\claude.EXE",
      "D:\\tools\\claude.CMD",
    ],
  );
  assert.deepEqual(pathCandidates("claude.cmd", { PATH: "C:\\bin", PATHEXT: ".EXE;.CMD" }, true), [
    "C:\\bin\\claude.cmd",
  ]);
  assert.equal(pathCandidates("codex", { PATH: "C:\\bin" }, true).length, 4);
});

/** A temp dir with an executable script per name (mode 0o755) and one plain file. */
async function scripts(bodies: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "svc_probe_" });
  for (const [name, body] of Object.entries(bodies)) {
    await Deno.writeTextFile(`${dir}/${name}`, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    await Deno.chmod(`${dir}/${name}`, 0o755);
  }
  await Deno.writeTextFile(`${dir}/plain`, "#!/bin/sh\nexit 0\n", { mode: 0o644 });
  await Deno.chmod(`${dir}/plain`, 0o644);
  return dir;
}

Deno.test({
  name: "systemProber() finds and version-probes real programs",
  ignore: !unix,
  ...sanitize,
  fn: async (t) => {
    const dir = await scripts({ ok: "exit 0", fails: "exit 1" });
    try {
      const prober = systemProber({ PATH: `/nonexistent:${dir}` });
      const probe = (command: string, builtin: boolean) =>
        probeHarness(spec([command], builtin), prober, { timeoutMs: 5000, versions: true });

      await t.step("an executable that exits 0 is enabled", async () => {
        assert.deepEqual(await probe(`${dir}/ok`, true), { status: "enabled", path: `${dir}/ok` });
      });
      await t.step("a built-in whose version probe exits 1 is degraded", async () => {
        assert.deepEqual(await probe(`${dir}/fails`, true), {
          status: "degraded",
          path: `${dir}/fails`,
        });
      });
      await t.step("a configured program is not version-probed", async () => {
        assert.deepEqual(await probe(`${dir}/fails`, false), {
          status: "enabled",
          path: `${dir}/fails`,
        });
      });
      await t.step("PATH lookup resolves a bare name", async () => {
        assert.deepEqual(await probe("ok", true), { status: "enabled", path: `${dir}/ok` });
      });
      await t.step("PATH lookup skips a file without an execute bit", async () => {
        assert.equal(await prober.find("plain"), null);
        assert.deepEqual(await probe("plain", false), { status: "disabled", path: null });
      });
      await t.step(
        "an absolute path that exists is found even without an execute bit",
        async () => {
          assert.deepEqual(await probe(`${dir}/plain`, false), {
            status: "enabled",
            path: `${dir}/plain`,
          });
          assert.deepEqual(await probe(`${dir}/plain`, true), {
            status: "degraded",
            path: `${dir}/plain`,
          });
        },
      );
      await t.step("missing programs, directories and relative paths are disabled", async () => {
        for (const program of ["missing", `${dir}/missing`, dir, "./ok", `..${dir}/ok`]) {
          assert.equal(await prober.find(program), null, program);
        }
        assert.deepEqual(await probe("missing", true), { status: "disabled", path: null });
      });
      await t.step("without PATH, bare names are not found", async () => {
        assert.equal(await systemProber({}).find("ok"), null);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "systemProber() runVersion() reports a failed spawn as false",
  ignore: !unix,
  ...sanitize,
  fn: async () => {
    assert.equal(
      await systemProber({}).runVersion("/nonexistent/tool", ["--version"], {
        timeoutMs: 1000,
        env: {},
      }),
      false,
    );
  },
});

/** True once `pid` is gone or a zombie (nobody may reap orphans in a container). */
async function processGone(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

Deno.test({
  name: "systemProber() kills a version probe that outlives its timeout, with its children",
  ignore: !linux,
  ...sanitize,
  fn: async () => {
    // The program runs until its `sleep 30` ends, then leaves a "finished" file: a probe that
    // waited for the program to end would find that file when it returns.
    const dir = await scripts({
      slow:
        'sleep 30 &\necho "$$ $!" > "$(dirname "$0")/pids"\nwait\n: > "$(dirname "$0")/finished"',
    });
    try {
      const result = await withinHang(
        probeHarness(spec([`${dir}/slow`], true), systemProber({}), {
          timeoutMs: 300,
          versions: true,
        }),
        30_000 + HANG_MS,
        "the version probe",
      );
      const finished = await Deno.stat(`${dir}/finished`).then(() => true, () => false);
      assert.equal(finished, false, "the probe waited for the program to end");
      assert.deepEqual(result, { status: "degraded", path: `${dir}/slow` });

      const pids = (await Deno.readTextFile(`${dir}/pids`)).trim().split(" ").map(Number);
      for (const pid of pids) {
        let gone = await processGone(pid);
        for (let i = 0; i < 50 && !gone; i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          gone = await processGone(pid);
        }
        assert.ok(gone, `process ${pid} of the version probe is still running`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "readVersion() keeps the first line printed, and kills a probe that outlives its timeout",
  ignore: !linux,
  ...sanitize,
  fn: async (t) => {
    const dir = await scripts({
      prints: 'echo ""\necho "tool 1.2.3"\necho "more"',
      stderr: 'echo "tool from stderr" >&2\nexit 3',
      silent: "exit 0",
      slow: 'echo "tool 9"\nsleep 30 &\nwait',
    });
    try {
      await t.step("the first non-empty stdout line", async () => {
        assert.deepEqual(await readVersion(`${dir}/prints`, [], { timeoutMs: 5000, env: {} }), {
          answered: true,
          text: "tool 1.2.3",
        });
      });
      await t.step("stderr when stdout is empty; a failing exit is not an answer", async () => {
        assert.deepEqual(await readVersion(`${dir}/stderr`, [], { timeoutMs: 5000, env: {} }), {
          answered: false,
          text: "tool from stderr",
        });
      });
      await t.step("nothing printed", async () => {
        assert.deepEqual(await readVersion(`${dir}/silent`, [], { timeoutMs: 5000, env: {} }), {
          answered: true,
          text: null,
        });
      });
      await t.step("timed out: killed with its children, what it printed kept", async () => {
        const result = await withinHang(
          readVersion(`${dir}/slow`, [], { timeoutMs: 300, env: {} }),
          30_000 + HANG_MS,
          "readVersion",
        );
        assert.deepEqual(result, { answered: false, text: "tool 9" });
      });
      await t.step("a program that cannot start", async () => {
        assert.deepEqual(await readVersion(`${dir}/missing`, [], { timeoutMs: 1000, env: {} }), {
          answered: false,
          text: null,
        });
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
