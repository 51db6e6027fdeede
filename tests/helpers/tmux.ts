/**
 * A tmux server of a test's own (its socket in a directory of the test), to
 * run a terminal program for real: type keys, read the screen, resize it
 * and ask tmux about the terminal's state. `TMUX_INSTALLED` says whether the
 * tests that need it can run (they are skipped, loudly, without it).
 */
import { removeTree, tempHome } from "./home.ts";
import { MAIN } from "./process.ts";

async function hasTmux(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("tmux", {
      args: ["-V"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

export const TMUX_INSTALLED = await hasTmux();

/** `text` quoted for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Runs `svc ui` in a pane. CI is unset (Ink draws only a final frame when
 * it believes it runs in CI); NO_COLOR is set so the screen reads plainly.
 * After svc exits the pane prints its exit code and the terminal's mode.
 */
export function svcUiCommand(home: string): string {
  const svc = [Deno.execPath(), "run", "--allow-all", MAIN, "ui", "--home", home]
    .map(shellQuote).join(" ");
  return `env -u CI NO_COLOR=1 ${svc}; echo "ui-exit=$?"; ` +
    `echo "tty=$(stty -a | tr ' ;' '\\n\\n' | grep -x -- '-*icanon')"; exec sleep 600`;
}

/**
 * Runs tmux commands on the server at `${dir}/tmux.sock`, without the user's
 * config; a failed command throws with tmux's stderr. Returns its stdout.
 */
export function tmuxRunner(dir: string): (...args: string[]) => Promise<string> {
  const socket = `${dir}/tmux.sock`;
  const decoder = new TextDecoder();
  return async (...args) => {
    const output = await new Deno.Command("tmux", {
      args: ["-S", socket, "-f", "/dev/null", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      throw new Error(`tmux ${args.join(" ")}: ${decoder.decode(output.stderr)}`);
    }
    return decoder.decode(output.stdout);
  };
}

/** The tmux server on `${dir}/tmux.sock`, with one session named `name`. */
export function tmuxPane(dir: string, name: string) {
  const run = tmuxRunner(dir);
  const screen = (escapes = false) =>
    run("capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", name);
  return {
    run,
    /** Starts `command` (a shell line) in a `columns`×`rows` pane, in `cwd`. */
    start: (command: string, options: { cwd: string; columns: number; rows: number }) =>
      run(
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        String(options.columns),
        "-y",
        String(options.rows),
        "-c",
        options.cwd,
        command,
      ),
    /** The pane's visible text (`escapes`: with its styles as escape sequences). */
    screen,
    /** Sends tmux key names (`Enter`, `C-c`, `Up`) or, with `literal`, text as typed. */
    keys: (keys: string[], literal = false) =>
      run("send-keys", "-t", name, ...(literal ? ["-l"] : []), ...keys),
    /** A tmux format of the pane (`#{alternate_on}`, `#{cursor_flag}`, `#{pane_title}`). */
    format: async (format: string) => (await run("display", "-p", "-t", name, format)).trim(),
    resize: (columns: number, rows: number) =>
      run("resize-window", "-t", name, "-x", String(columns), "-y", String(rows)),
    /** Waits until the screen matches `pattern`; returns the screen. */
    async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = await screen();
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`The screen never matched ${pattern}:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    kill: () => run("kill-server").catch(() => ""),
  };
}

/**
 * Registers `fn` as one test per terminal size the issues ask for (80×24 and
 * 200×50), named `svc ui in tmux at C×R: what`; ignored without tmux.
 */
export function testAtTerminalSizes(
  what: string,
  fn: (columns: number, rows: number) => Promise<void>,
): void {
  for (const [columns, rows] of [[80, 24], [200, 50]]) {
    Deno.test({
      name: `svc ui in tmux at ${columns}×${rows}: ${what}`,
      ignore: !TMUX_INSTALLED,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: () => fn(columns, rows),
    });
  }
}

/**
 * `svc ui --home HOME` in a new `columns`×`rows` pane (CI unset, NO_COLOR
 * set, so the screen reads plainly); disposing it kills the pane.
 */
export async function svcUiPane(
  home: string,
  size: { cwd: string; columns: number; rows: number },
) {
  const dir = await tempHome();
  const pane = tmuxPane(dir, "ui");
  const svc = [Deno.execPath(), "run", "--allow-all", MAIN, "ui", "--home", home]
    .map(shellQuote).join(" ");
  await pane.start(`env -u CI NO_COLOR=1 ${svc}; exec sleep 600`, size);
  return Object.assign(pane, {
    async [Symbol.asyncDispose]() {
      await pane.kill();
      await removeTree(dir);
    },
  });
}
