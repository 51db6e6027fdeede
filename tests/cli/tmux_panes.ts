/**
 * Real terminals for CLI tests: a tmux server of its own with named panes
 * (one tmux session each) that run `svc`, type keys and read the screen.
 */
import { MAIN } from "../helpers/process.ts";
import { shellQuote, tmuxRunner } from "../helpers/tmux.ts";

/** The command line of `svc ARGS` with `SVC_HOME=home` and colour allowed, for a shell. */
export function svcCommandLine(home: string, args: string[], env: Record<string, string> = {}) {
  const vars = Object.entries({ SVC_HOME: home, NO_COLOR: "", ...env })
    .map(([key, value]) => `${key}=${shellQuote(value)}`).join(" ");
  const svc = [Deno.execPath(), "run", "--allow-all", MAIN, ...args].map(shellQuote).join(" ");
  return `env ${vars} ${svc}`;
}

/** The tmux server of a test; its socket lives in `dir`. */
export interface TmuxPanes {
  run(...args: string[]): Promise<string>;
  /**
   * Starts `svc ARGS` in a new pane `name` (home `home`, in `cwd`). After svc
   * exits the pane prints `exit=CODE` and the terminal's `stty -a`, then idles.
   */
  start(name: string, { home, cwd, args, env }: {
    home: string;
    cwd: string;
    args: string[];
    env?: Record<string, string>;
  }): Promise<void>;
  /** Starts an interactive bash (no rc files) in a new pane `name`, for job control. */
  shell(name: string, cwd: string): Promise<void>;
  screen(name: string): Promise<string>;
  /** The `stty -a` of the pane's terminal, read from outside it. */
  ttyModes(name: string): Promise<string>;
  /** Waits until the screen of `name` matches `pattern`; returns the screen. */
  waitFor(name: string, pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends tmux key names (`C-c`, `Enter`) to `name`. */
  keys(name: string, ...keys: string[]): Promise<void>;
  /** Types `text` literally, then Enter. */
  typeLine(name: string, text: string): Promise<void>;
  /** The pid of the process `pattern` matches among the pane's descendants. */
  childPid(name: string, pattern: RegExp): Promise<number>;
  kill(): Promise<void>;
}

/** A tmux server of its own, socket in `dir`, without the user's config. */
export function tmuxPanes(dir: string): TmuxPanes {
  const run = tmuxRunner(dir);
  const decoder = new TextDecoder();
  const screen = (name: string) => run("capture-pane", "-p", "-J", "-t", name);
  return {
    run,
    async start(name, { home, cwd, args, env = {} }) {
      const command = `${svcCommandLine(home, args, env)}; echo "exit=$?"; stty -a; ` +
        `exec sleep 600`;
      await run("new-session", "-d", "-s", name, "-x", "200", "-y", "50", "-c", cwd, command);
    },
    async shell(name, cwd) {
      await run(
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        "200",
        "-y",
        "50",
        "-c",
        cwd,
        "env PS1='$ ' bash --norc --noprofile --noediting -i",
      );
    },
    screen,
    async ttyModes(name) {
      const tty = (await run("display-message", "-p", "-t", name, "#{pane_tty}")).trim();
      const output = await new Deno.Command("stty", { args: ["-a", "-F", tty], stdout: "piped" })
        .output();
      return decoder.decode(output.stdout);
    },
    async waitFor(name, pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = await screen(name);
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) {
          throw new Error(`Pane ${name} never matched ${pattern}:\n${text}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async keys(name, ...keys) {
      await run("send-keys", "-t", name, ...keys);
    },
    async typeLine(name, text) {
      await run("send-keys", "-t", name, "-l", text);
      await run("send-keys", "-t", name, "Enter");
    },
    async childPid(name, pattern) {
      const panePid = Number(
        (await run("display-message", "-p", "-t", name, "#{pane_pid}")).trim(),
      );
      const output = await new Deno.Command("ps", {
        args: ["-e", "-o", "pid=,ppid=,args="],
        stdout: "piped",
      }).output();
      const rows = decoder.decode(output.stdout).split("\n").map((line) => {
        const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
        return match ? { pid: Number(match[1]), ppid: Number(match[2]), args: match[3] } : null;
      }).filter((row) => row !== null);
      const family = new Set([panePid]);
      for (let grew = true; grew;) {
        grew = false;
        for (const row of rows) {
          if (family.has(row.ppid) && !family.has(row.pid)) {
            family.add(row.pid);
            grew = true;
          }
        }
      }
      const found = rows.find((row) => family.has(row.pid) && pattern.test(row.args));
      if (!found) throw new Error(`No process in pane ${name} matches ${pattern}`);
      return found.pid;
    },
    kill: () => run("kill-server").then(() => {}, () => {}),
  };
}
