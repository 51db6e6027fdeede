/**
 * `svc chat` in a real terminal: a tmux pane runs it against a real `svc
 * serve` with the scripted stream-json agent, and the test types keys and
 * reads the screen (D16, D17). Skipped, with a warning, where tmux is not
 * installed (apt-get install tmux).
 */
import assert from "node:assert/strict";
import { waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { MAIN } from "../helpers/process.ts";
import { startCliDaemon } from "./cli_daemon.ts";
import { shellQuote, TMUX_INSTALLED, tmuxPane } from "../helpers/tmux.ts";

if (!TMUX_INSTALLED) {
  console.warn(
    "\n*** chat_tmux_test.ts SKIPPED: tmux is not installed, so `svc chat` is not tested in a " +
      "real terminal. Install it (apt-get install -y tmux) to run this test. ***\n",
  );
}

/** A tmux server of its own (its socket in `dir`), with one pane, and a line typed with Enter. */
function tmuxOn(dir: string) {
  const pane = tmuxPane(dir, "chat");
  return {
    ...pane,
    /** Types `text` literally, then Enter. */
    async typeLine(text: string): Promise<void> {
      await pane.keys([text], true);
      await pane.keys(["Enter"]);
    },
  };
}

/**
 * Runs `svc ARGS` in the pane (session "chat"). NO_COLOR is empty: colour is
 * allowed, as on a user's terminal. After svc exits the pane prints its exit
 * code and whether the terminal is back in canonical mode.
 */
async function startPane(
  tmux: ReturnType<typeof tmuxOn>,
  home: string,
  cwd: string,
  args: string[],
): Promise<void> {
  const svc = [Deno.execPath(), "run", "--allow-all", MAIN, ...args].map(shellQuote).join(" ");
  const command = `env SVC_HOME=${shellQuote(home)} NO_COLOR= ${svc}; ` +
    `echo "chat-exit=$?"; echo "tty=$(stty -a | tr ' ;' '\\n\\n' | grep -x -- '-*icanon')"; ` +
    `exec sleep 600`;
  await tmux.run("new-session", "-d", "-s", "chat", "-x", "120", "-y", "40", "-c", cwd, command);
}

/** The non-empty lines of a screen. */
const linesOf = (screen: string) => screen.split("\n").filter((line) => line.trim() !== "");

Deno.test({
  name: "chatCommand in tmux: a turn, Ctrl-C interrupting a turn, /close ending the session",
  ignore: !TMUX_INSTALLED,
  async fn() {
    await using d = await startCliDaemon();
    const dir = await tempHome();
    const tmux = tmuxOn(dir);
    try {
      await startPane(tmux, d.home, d.project, ["chat", "--harness", "agent"]);
      await tmux.waitFor(/type the first message\n› *$/m);
      await tmux.typeLine("hello there");
      let screen = await tmux.waitFor(/^ {2}✓ turn 1 completed/m);
      assert.match(screen, /^you › hello there$/m);
      assert.match(screen, /^agent › echo: hello there$/m);
      assert.match(
        screen,
        /^Session ses_[0-9A-Z]{26} · harness agent · protocol claude: \/help lists commands$/m,
      );
      // The prompt stays on the last line, below the transcript.
      assert.equal(linesOf(screen).at(-1)!.trimEnd(), "›");
      assert.ok((await tmux.screen(true)).includes("\x1b["), "colour on a terminal");

      await tmux.typeLine("hang");
      await tmux.waitFor(/^you › hang$/m);
      await tmux.run("send-keys", "-t", "chat", "C-c");
      screen = await tmux.waitFor(/^ {2}⊘ turn 2 interrupted/m);
      assert.match(screen, /^Interrupting the turn \(Ctrl-C again within 2 s detaches\)$/m);

      await tmux.typeLine("/close");
      screen = await tmux.waitFor(/^tty=/m);
      assert.match(screen, /^· session completed · exit 0$/m);
      assert.match(screen, /^chat-exit=0$/m);
      assert.match(screen, /^tty=icanon$/m, "the terminal is restored");
      // What was typed shows once, as the transcript's "you ›" line, not also as a prompt.
      assert.equal(linesOf(screen).filter((line) => line.includes("hello there")).length, 2);
    } finally {
      await tmux.kill();
      await removeTree(dir);
    }
  },
});

Deno.test({
  name: "chatCommand in tmux: a permission request is the prompt, and the y key alone answers it",
  ignore: !TMUX_INSTALLED,
  async fn() {
    await using d = await startCliDaemon();
    const dir = await tempHome();
    const tmux = tmuxOn(dir);
    try {
      await startPane(tmux, d.home, d.project, ["chat", "--harness", "agent", "ask Bash touch x"]);
      let screen = await tmux.waitFor(
        /^Allow Bash: touch x\? \[y\]es \/ \[n\]o \/ \[a\]lways › *$/m,
      );
      assert.match(screen, /^ {2}\? Bash: touch x asks permission \(request req_1\)$/m);
      await tmux.run("send-keys", "-t", "chat", "-l", "y"); // No Enter.
      screen = await tmux.waitFor(/^agent › allowed$/m);
      assert.match(screen, /^ {2}✓ request req_1 allowed \(owner\)$/m);
      // Answered: the plain prompt is back, and a y now is typed, not an answer.
      await tmux.run("send-keys", "-t", "chat", "-l", "y");
      screen = await tmux.waitFor(/^› y$/m);
      assert.doesNotMatch(screen, /^Allow /m);
      await tmux.run("send-keys", "-t", "chat", "C-u");
      await tmux.typeLine("/close");
      screen = await tmux.waitFor(/^tty=/m);
      assert.match(screen, /^chat-exit=0$/m);
    } finally {
      await tmux.kill();
      await removeTree(dir);
    }
  },
});

Deno.test({
  name: "attachCommand in tmux: the transcript so far, then Ctrl-C twice detaches",
  ignore: !TMUX_INSTALLED,
  async fn() {
    await using d = await startCliDaemon();
    const launched = await d.client.post<{ id: string }>("/sessions", {
      projectRoot: d.project,
      harness: "agent",
      prompt: "hang",
    });
    assert.equal(launched.status, 201);
    const id = launched.body.id;
    const dir = await tempHome();
    const tmux = tmuxOn(dir);
    try {
      await startPane(tmux, d.home, d.project, ["attach", id]);
      await tmux.waitFor(/^you › hang$/m);
      await tmux.run("send-keys", "-t", "chat", "C-c");
      // The second Ctrl-C must come within 2 s of the first: send it once the first is seen.
      await tmux.waitFor(/^Interrupting the turn/m);
      await tmux.run("send-keys", "-t", "chat", "C-c");
      const screen = await tmux.waitFor(/^tty=/m);
      assert.match(screen, new RegExp(`^Detached: session ${id} keeps running\\.`, "m"));
      assert.match(screen, /^chat-exit=0$/m);
      assert.match(screen, /^tty=icanon$/m, "the terminal is restored");
      const record = await d.client.get<{ status: string }>(`/sessions/${id}`);
      assert.equal(record.body.status, "running");
    } finally {
      await tmux.kill();
      await removeTree(dir);
      await d.client.post(`/sessions/${id}/kill`, { signal: "SIGKILL" });
      await waitForEnd(d.client, id);
    }
  },
});
