/**
 * `svc doctor` through the real CLI (issue 27 item 13): fake `claude` and
 * `codex` programs on PATH, a temporary HOME, credentials set or unset, a
 * local TCP listener as the provider host and a closed port.
 */
import assert from "node:assert/strict";
import { removeTree, tempHome } from "../helpers/home.ts";
import { PROVIDER_ENV_VARS } from "../../src/cli/doctor_providers.ts";
import { runSvc, startServe } from "../helpers/process.ts";

const SECRET = "sk-doctor-test-secret-value";

/** Every variable the provider checks read, blanked so the test machine's own do not count. */
const PROVIDER_VARS = [
  "SVC_HOME",
  "CODEX_HOME",
  "XDG_CONFIG_HOME",
  ...PROVIDER_ENV_VARS,
  "FAKE_KEY",
];

/** Deno's cache, which a temporary HOME would otherwise hide from `deno run`. */
async function denoDir(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  return JSON.parse(new TextDecoder().decode(output.stdout)).denoDir;
}

/** A machine for `svc doctor`: HOME, PATH with the fake agents, an open and a closed port. */
interface Machine {
  userHome: string;
  svcHome: string;
  bin: string;
  openPort: number;
  closedPort: number;
  env(extra?: Record<string, string>): Record<string, string>;
  doctor(
    args: string[],
    extra?: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function machine(): Promise<Machine> {
  const userHome = await tempHome();
  const svcHome = `${userHome}/.svc`;
  await Deno.mkdir(svcHome, { mode: 0o700 });
  await Deno.chmod(svcHome, 0o700);
  const bin = `${userHome}/bin`;
  await Deno.mkdir(bin);
  for (
    const [name, version] of [["claude", "2.1.197 (Claude Code)"], ["codex", "codex-cli 0.169.0"]]
  ) {
    await Deno.writeTextFile(`${bin}/${name}`, `#!/bin/sh\necho "${version}"\n`);
    await Deno.chmod(`${bin}/${name}`, 0o755);
  }
  // codex talks to a provider of its config.toml whose key is FAKE_KEY, on a closed port.
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = closed.addr.port;
  closed.close();
  await Deno.mkdir(`${userHome}/.codex`);
  await Deno.writeTextFile(
    `${userHome}/.codex/config.toml`,
    `model_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n` +
      `base_url = "http://127.0.0.1:${closedPort}/v1"\nenv_key = "FAKE_KEY"\n` +
      `wire_api = "responses"\n`,
  );
  // The provider host that answers: accepts and closes, as a model provider never would.
  const provider = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepting = (async () => {
    for await (const conn of provider) conn.close();
  })();
  const cache = await denoDir();
  const env = (extra: Record<string, string> = {}) => ({
    ...Object.fromEntries(PROVIDER_VARS.map((name) => [name, ""])),
    NO_COLOR: "1",
    HOME: userHome,
    DENO_DIR: cache,
    PATH: bin,
    ...extra,
  });
  return {
    userHome,
    svcHome,
    bin,
    openPort: provider.addr.port,
    closedPort,
    env,
    doctor: (args, extra = {}) => runSvc(["doctor", "--home", svcHome, ...args], env(extra)),
    async [Symbol.asyncDispose]() {
      provider.close();
      await accepting.catch(() => {});
      await removeTree(userHome);
    },
  };
}

/** The report's line for `subject` and `check` as `mark text — hint`, or a failure listing the report. */
function line(stdout: string, subject: string, check: string): string {
  for (const text of stdout.split("\n")) {
    const match = new RegExp(`^  ([✓!✗]) ${subject} +${check} +(.*)$`).exec(text);
    if (match) return `${match[1]} ${match[2]}`;
  }
  assert.fail(`no "${subject} ${check}" line in:\n${stdout}`);
}

Deno.test("svc doctor: claude ready with a provider that answers, codex missing its env_key fails (exit 1), no daemon", async () => {
  await using host = await machine();
  const result = await host.doctor([], {
    ANTHROPIC_API_KEY: SECRET,
    ANTHROPIC_BASE_URL: `http://user:${SECRET}@127.0.0.1:${host.openPort}/v1`,
  });
  assert.equal(result.code, 1, result.stdout + result.stderr);
  const out = result.stdout;
  assert.ok(!out.includes(SECRET), "a secret was printed");
  assert.match(out, /^Harnesses\n/);
  assert.match(line(out, "claude", "program"), /✓ .*\/bin\/claude \(2\.1\.197 \(Claude Code\)\)/);
  assert.match(line(out, "claude", "credentials"), /✓ .*present: ANTHROPIC_API_KEY/);
  assert.match(
    line(out, "claude", "provider"),
    new RegExp(
      `✓ .*127\\.0\\.0\\.1:${host.openPort} \\(ANTHROPIC_BASE_URL\\) accepts a connection`,
    ),
  );
  assert.match(line(out, "codex", "program"), /✓ .*codex-cli 0\.169\.0/);
  assert.match(
    line(out, "codex", "credentials"),
    /✗ .*provider "fake" needs FAKE_KEY, which is not set — set FAKE_KEY/,
  );
  assert.match(
    line(out, "codex", "provider"),
    new RegExp(`! .*127\\.0\\.0\\.1:${host.closedPort} .*does not accept a connection within 2 s`),
  );
  assert.match(line(out, "gemini", "program"), /! .*not installed: "gemini" is not on PATH/);
  assert.match(line(out, "opencode", "program"), /! .*not installed/);
  assert.match(line(out, "home", "directory"), /✓ .*owner-only \(mode 700\)/);
  assert.match(line(out, "daemon", "socket"), /! .*the daemon is not running \(no socket: /);
  assert.match(line(out, "store", "svc.db"), /! no store yet/);
  assert.match(line(out, "config", "config.json"), /✓ no .*config\.json: the defaults/);
  assert.match(out, /\nService\n/);
  assert.match(out, /1 problem to fix \(✗\)/);
});

Deno.test("svc doctor --json: every harness that is installed has what it needs (exit 0); warnings do not fail", async () => {
  await using host = await machine();
  if (Deno.build.os === "linux") {
    await Deno.mkdir(`${host.userHome}/.config/systemd/user`, { recursive: true });
    await Deno.writeTextFile(`${host.userHome}/.config/systemd/user/svc.service`, "[Unit]\n");
  }
  const result = await host.doctor(["--json"], {
    ANTHROPIC_API_KEY: SECRET,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${host.openPort}`,
    FAKE_KEY: SECRET,
  });
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.ok(!result.stdout.includes(SECRET), "a secret was printed");
  const report = JSON.parse(result.stdout);
  assert.equal(report.ok, true);
  assert.equal(report.daemon.running, false);
  const byId = new Map(report.harnesses.map((h: { id: string }) => [h.id, h]));
  assert.deepEqual(byId.get("claude"), {
    id: "claude",
    label: "Claude Code",
    builtin: true,
    program: "claude",
    path: `${host.bin}/claude`,
    version: "2.1.197 (Claude Code)",
    versionAnswered: true,
    daemonStatus: null,
    credentials: { mark: "ok", found: ["ANTHROPIC_API_KEY"] },
    provider: {
      host: "127.0.0.1",
      port: host.openPort,
      source: "ANTHROPIC_BASE_URL",
      answers: true,
    },
  });
  const codex = byId.get("codex") as Record<string, unknown>;
  assert.deepEqual(codex.credentials, {
    mark: "ok",
    found: [`${host.userHome}/.codex/config.toml`, "FAKE_KEY"],
  });
  assert.deepEqual(codex.provider, {
    host: "127.0.0.1",
    port: host.closedPort,
    source: "config.toml model_providers.fake.base_url",
    answers: false,
  });
  assert.equal((byId.get("gemini") as Record<string, unknown>).path, null);
  const marks = report.lines.map((l: { subject: string; check: string; mark: string }) =>
    `${l.subject} ${l.check} ${l.mark}`
  );
  assert.ok(marks.includes("codex provider warn"), marks.join("\n"));
  assert.ok(marks.includes("gemini program warn"), marks.join("\n"));
  if (Deno.build.os === "linux") assert.ok(marks.includes("unit installed ok"), marks.join("\n"));
});

Deno.test("svc doctor: a home group or others can read (0755) is unsafe (exit 1)", async () => {
  await using host = await machine();
  await Deno.chmod(host.svcHome, 0o755);
  const result = await host.doctor([], {
    ANTHROPIC_API_KEY: SECRET,
    FAKE_KEY: SECRET,
  });
  assert.equal(result.code, 1, result.stdout + result.stderr);
  assert.match(
    line(result.stdout, "home", "directory"),
    new RegExp(`✗ .*\\.svc is mode 755: group or others .* — chmod 700 .*\\.svc$`),
  );
});

Deno.test("svc doctor with a daemon running: its health, its store and its view of the harnesses; a configured program that is missing fails", async () => {
  await using host = await machine();
  await Deno.writeTextFile(
    `${host.svcHome}/config.json`,
    JSON.stringify({ harnesses: { ghost: { command: ["no-such-agent-program"], prompt: "arg" } } }),
  );
  const serve = await startServe(host.svcHome, [], host.env());
  try {
    const result = await host.doctor([], { ANTHROPIC_API_KEY: SECRET, FAKE_KEY: SECRET });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const out = result.stdout;
    assert.match(line(out, "daemon", "socket"), /✓ running: pid \d+, svc /);
    assert.match(line(out, "store", "svc.db"), /✓ .*the running daemon reports it ok/);
    assert.match(line(out, "config", "config.json"), /✓ .*1 configured harness$/);
    assert.match(
      line(out, "ghost", "program"),
      /✗ "no-such-agent-program" is not found \(config\.json harness\)/,
    );
    // The daemon runs with the same PATH: it agrees, so no "daemon" line.
    assert.ok(!/ claude +daemon /.test(out), out);
    const json = JSON.parse((await host.doctor(["--json"], { ANTHROPIC_API_KEY: SECRET })).stdout);
    assert.equal(json.daemon.running, true);
    assert.equal(json.daemon.store, "ok");
    const claude = json.harnesses.find((h: { id: string }) => h.id === "claude");
    assert.equal(claude.daemonStatus, "enabled");
  } finally {
    const status = await serve.stop();
    assert.equal(status.code, 0, serve.stderr());
  }
  // Stopped: the store's files are judged as `svc serve` will (D24), read-only.
  const after = await host.doctor([], { ANTHROPIC_API_KEY: SECRET, FAKE_KEY: SECRET });
  assert.match(line(after.stdout, "store", "svc.db"), /✓ .*svc\.db and store\.id match/);
  assert.match(line(after.stdout, "daemon", "socket"), /! .*the daemon is not running/);
  await Deno.writeTextFile(`${host.svcHome}/store.id`, "another-store\n");
  const replaced = await host.doctor([], { ANTHROPIC_API_KEY: SECRET, FAKE_KEY: SECRET });
  assert.match(
    line(replaced.stdout, "store", "svc.db"),
    /✗ .*is not the store store\.id names: it was replaced/,
  );
});
