/** `svc logs [--lines N] [--follow]`: the daemon's own log, read from the file (D2, issue 7). */
import assert from "node:assert/strict";
import { EXIT, UsageError } from "../../src/cli/command.ts";
import { colorLogLines, followLog, logsCommand, readLastLines } from "../../src/cli/logs.ts";
import { createLogger, fileSink } from "../../src/log.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { captureIo } from "../helpers/capture_io.ts";

function capture(home: string) {
  return captureIo({ SVC_HOME: home, NO_COLOR: "1" });
}

/** `line 1\n` … `line N\n`. */
function numbered(from: number, to: number): string {
  let text = "";
  for (let i = from; i <= to; i++) text += `line ${i}\n`;
  return text;
}

/** A home with `logs/daemon.log` holding `text`. */
async function homeWithLog(text: string): Promise<{ home: string; log: string }> {
  const home = await tempHome();
  await Deno.mkdir(`${home}/logs`);
  const log = `${home}/logs/daemon.log`;
  await Deno.writeTextFile(log, text);
  return { home, log };
}

async function waitFor(read: () => string, needle: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!read().includes(needle)) {
    if (Date.now() > deadline) throw new Error(`No "${needle}" in ${JSON.stringify(read())}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("readLastLines() returns the last N lines and the size read up to", async (t) => {
  const { home, log } = await homeWithLog(numbered(1, 5));
  try {
    await t.step("fewer, equal and more lines than asked", async () => {
      assert.deepEqual(await readLastLines(log, 2), { text: "line 4\nline 5\n", size: 35 });
      assert.equal((await readLastLines(log, 5)).text, numbered(1, 5));
      assert.equal((await readLastLines(log, 50)).text, numbered(1, 5));
      assert.deepEqual(await readLastLines(log, 0), { text: "", size: 35 });
    });

    await t.step("a last line without a newline counts as a line", async () => {
      await Deno.writeTextFile(log, "a\nb\nc");
      assert.equal((await readLastLines(log, 2)).text, "b\nc");
    });

    await t.step("lines across read chunks and multi-byte characters", async () => {
      const long = "é".repeat(40_000); // 80 000 bytes: more than one 64 KiB chunk
      await Deno.writeTextFile(log, `first\n${long}\nlast\n`);
      assert.equal((await readLastLines(log, 2)).text, `${long}\nlast\n`);
      assert.equal((await readLastLines(log, 3)).text, `first\n${long}\nlast\n`);
    });

    await t.step("an empty file", async () => {
      await Deno.writeTextFile(log, "");
      assert.deepEqual(await readLastLines(log, 10), { text: "", size: 0 });
    });
  } finally {
    await removeTree(home);
  }
});

Deno.test("logsCommand: prints the last lines of the daemon log", async (t) => {
  const { home } = await homeWithLog(numbered(1, 80));
  try {
    await t.step("default: the last 50 lines, exit 0", async () => {
      const c = capture(home);
      assert.equal(await logsCommand.run([], c.io), EXIT.ok);
      assert.equal(c.stdout(), numbered(31, 80));
    });

    await t.step("--lines N", async () => {
      const c = capture(home);
      assert.equal(await logsCommand.run(["--lines", "3"], c.io), EXIT.ok);
      assert.equal(c.stdout(), numbered(78, 80));
    });

    await t.step("--home DIR wins over SVC_HOME", async () => {
      const c = capture("/nonexistent");
      assert.equal(await logsCommand.run(["--home", home, "--lines", "1"], c.io), EXIT.ok);
      assert.equal(c.stdout(), "line 80\n");
    });

    await t.step("a bad --lines or an unknown flag is a usage error", async () => {
      const c = capture(home);
      const run = async (args: string[]) => await logsCommand.run(args, c.io);
      await assert.rejects(() => run(["--lines", "x"]), /"--lines" must be an integer/);
      await assert.rejects(() => run(["--lines", "-1"]), UsageError);
      await assert.rejects(() => run(["--json"]), UsageError);
    });
  } finally {
    await removeTree(home);
  }
});

Deno.test("logsCommand: exits 1 naming the file when there is no log", async () => {
  const home = await tempHome();
  try {
    const c = capture(home);
    assert.equal(await logsCommand.run([], c.io), EXIT.refused);
    assert.equal(c.stdout(), "");
    assert.match(c.stderr(), new RegExp(`no daemon log at "${home}/logs/daemon\\.log"`));
  } finally {
    await removeTree(home);
  }
});

Deno.test("followLog() prints appended lines across truncation and rotation until aborted", async (t) => {
  const { home, log } = await homeWithLog("old 1\nold 2\n");
  const c = capture(home);
  const controller = new AbortController();
  // What `svc logs` printed already ends at this offset.
  const { size } = await Deno.stat(log);
  const following = followLog(log, c.io, { signal: controller.signal, offset: size, pollMs: 10 });
  try {
    await t.step("lines appended by the daemon's logger, not what was there before", async () => {
      const sink = fileSink(log);
      const logger = createLogger([sink.sink], () => Date.parse("2026-01-05T09:00:00.000Z"));
      logger.info("daemon started", { pid: 42 });
      logger.error("boom");
      sink.close();
      await waitFor(c.stdout, "boom");
      assert.equal(
        c.stdout(),
        '2026-01-05T09:00:00.000Z INFO daemon started {"pid":42}\n' +
          "2026-01-05T09:00:00.000Z ERROR boom\n",
      );
    });

    await t.step("only whole lines are printed", async () => {
      const before = c.stdout();
      await Deno.writeTextFile(log, "partial", { append: true });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(c.stdout(), before);
      await Deno.writeTextFile(log, " line\n", { append: true });
      await waitFor(c.stdout, "partial line\n");
    });

    await t.step("a rotated file: the rest of the old one, then the new one from 0", async () => {
      await Deno.writeTextFile(log, "last of old\n", { append: true });
      await Deno.rename(log, `${log}.1`);
      await Deno.writeTextFile(log, "first of new\n");
      await waitFor(c.stdout, "first of new\n");
      assert.ok(c.stdout().endsWith("partial line\nlast of old\nfirst of new\n"), c.stdout());
    });

    await t.step("a truncated file is read again from the start", async () => {
      await Deno.writeTextFile(log, "x\n");
      await waitFor(c.stdout, "first of new\nx\n");
    });

    await t.step("a removed file is waited for", async () => {
      await Deno.remove(log);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await Deno.writeTextFile(log, "back\n");
      await waitFor(c.stdout, "x\nback\n");
    });

    await t.step("abort ends the follow", async () => {
      controller.abort();
      await following;
    });
  } finally {
    controller.abort();
    await following;
    await removeTree(home);
  }
});

Deno.test("followLog() starts at the given offset", async () => {
  const { home, log } = await homeWithLog("a\nb\n");
  const c = capture(home);
  const controller = new AbortController();
  const following = followLog(log, c.io, { signal: controller.signal, offset: 2, pollMs: 10 });
  try {
    await waitFor(c.stdout, "b\n");
    assert.equal(c.stdout(), "b\n");
  } finally {
    controller.abort();
    await following;
    await removeTree(home);
  }
});

Deno.test("colorLogLines() dims the time and colours WARN and ERROR", () => {
  assert.equal(
    colorLogLines("T1 INFO a\nT2 WARN b\nT3 ERROR c\nplain\n"),
    "\x1b[2mT1\x1b[22m INFO a\n\x1b[2mT2\x1b[22m \x1b[1mWARN\x1b[22m b\n" +
      "\x1b[2mT3\x1b[22m \x1b[31mERROR\x1b[39m c\nplain\n",
  );
});
