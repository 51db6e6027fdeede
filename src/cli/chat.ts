import type { SessionRecord } from "../store/sessions_store.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type ChatTerminal, converse, parseChatLine } from "./chat_loop.ts";
import { openTerminal } from "./chat_terminal.ts";
import { type Command, EXIT, type Io, UsageError } from "./command.ts";
import { withClient } from "./connect.ts";
import { describeError } from "./output.ts";
import { joinSession } from "./attach.ts";
import { cliWorkingDirectory, resolveCliPath } from "./working_dir.ts";
import { approvalsOption } from "./sessions.ts";
import { resolveSessionId } from "./id_prefix.ts";

/** Exit code when Ctrl-C leaves before a session started: 128 + SIGINT. */
const EXIT_INTERRUPTED = 130;

/** `svc chat`: starts a session and holds its conversation in this terminal (D16, D17). */
export const chatCommand: Command = {
  name: "chat",
  summary: "Start a conversation with an agent in this terminal",
  usage: `Usage: svc chat --harness ID [--project-root DIR] [--cwd DIR] [--model M]
                [--title T] [--worktree] [--approvals ask|allow|deny] [--home DIR]
                [PROMPT...]
       svc chat SESSION [--resume] [--home DIR]

Starts a session of harness ID and shows its transcript as the agent works;
each line typed is the next turn (sent at once when the agent is idle, queued
while it works). The prompt is the arguments joined by spaces, else the first
line typed.

  /close      end the session once the agent is idle, then exit
  /quit       detach: exit, the session keeps running ("svc attach ID" resumes)
  /interrupt  cancel the current turn; Ctrl-C does the same, twice within 2 s detaches
  /help       list these; a line starting with // sends a leading /
  y, n, a     while the agent asks permission: allow, deny, allow always (also
              /allow, /deny, /always; in a terminal the key alone answers)

When stdin is not a terminal its lines are the turns, and its end closes the
session. Output is plain (no colour, no prompt) when stdout is not a terminal.
Exits 0 when the session completes or on detach, 1 when it ends otherwise.

"svc chat SESSION" (a session id or a unique prefix of one, no --harness)
continues that conversation: as "svc attach SESSION" while it runs; once it
has ended svc says so and, when it can be resumed (D26), asks (in a terminal)
or, with --resume, resumes it.

Options:
  --project-root DIR  the project (default: the current directory)
  --cwd DIR           where the agent runs (default: the project root)
  --model M           the model to ask the harness for
  --title T           the session's title (default: the prompt's first line)
  --worktree          work in a new git worktree of the repository, leaving your
                      checkout untouched (see "svc worktrees")
  --approvals P       how permission requests are answered: ask (in the chat),
                      allow or deny (default: the config's approvals.interactive)`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      home: CLIENT_OPTIONS.home,
      harness: { type: "string" },
      "project-root": { type: "string" },
      cwd: { type: "string" },
      model: { type: "string" },
      title: { type: "string" },
      worktree: { type: "boolean" },
      resume: { type: "boolean" },
      approvals: { type: "string" },
    }, { positionals: Infinity });
    const harness = values.harness;
    if (harness === undefined && positionals.length === 1) {
      return await continueSession(positionals[0], values, io);
    }
    if (harness === undefined) throw new UsageError('Missing "--harness ID"');
    const approvals = approvalsOption(values.approvals);
    const projectRoot = values["project-root"] === undefined
      ? await Deno.realPath(cliWorkingDirectory(io))
      : resolveCliPath(io, values["project-root"]);
    const launch = {
      projectRoot,
      harness,
      ...(values.cwd !== undefined && { cwd: resolveCliPath(io, values.cwd) }),
      ...(values.model !== undefined && { model: values.model }),
      ...(values.title !== undefined && { title: values.title }),
      ...(values.worktree && { isolation: "worktree" }),
      ...(approvals !== undefined && { approvals }),
    };
    return await withClient(values.home, io, async (client) => {
      // No daemon: exit 3 now, before anyone types a prompt.
      await client.negotiate();
      const terminal = openTerminal(io);
      try {
        let prompt = positionals.join(" ");
        if (prompt.trim() === "") {
          if (terminal.interactive) {
            terminal.notice(`Chat with ${harness} in ${projectRoot}: type the first message`);
          }
          const typed = await firstPrompt(terminal);
          if (typeof typed === "number") return typed;
          prompt = typed;
        }
        const response = await client.post<SessionRecord>("/sessions", { ...launch, prompt });
        if (!response.ok) {
          terminal.notice(describeError(response.body));
          return EXIT.refused;
        }
        const session = response.body;
        if (session.worktree !== null) {
          terminal.notice(
            `Worktree ${session.worktree.path} (branch ${session.worktree.branch}); ` +
              "your checkout is untouched",
          );
        }
        terminal.notice(
          terminal.interactive
            ? `Session ${session.id} · harness ${session.harness} · protocol ${session.protocol}: ` +
              "/help lists commands"
            : `session ${session.id}`,
        );
        return await converse(client, session, terminal, { home: values.home });
      } finally {
        terminal.close();
      }
    });
  },
};

/** A session id as svc makes them (ids.ts): `ses_` and 26 Crockford base32 characters. */
const SESSION_ID = /^ses_[0-9A-Z]{26}$/;

/**
 * `svc chat SESSION`: attaches, offering to resume an ended conversation (D26).
 * SESSION is an id or a unique prefix of one, as for every command (issue 38
 * item 13); text that starts no session's id, and lacks the `ses_` tag, is a
 * one-word prompt missing its `--harness`.
 */
async function continueSession(
  sessionText: string,
  values: { home?: string; resume?: boolean },
  io: Io,
): Promise<number> {
  return await withClient(values.home, io, async (client) => {
    const sessionId = await resolveSessionId(client, sessionText);
    if (!SESSION_ID.test(sessionId) && !/^ses_/i.test(sessionText)) {
      throw new UsageError(`Missing "--harness ID" (no session ID starts with "${sessionText}")`);
    }
    return await joinSession(client, sessionId, io, values);
  });
}

/**
 * The first turn typed before the session exists, or the exit code when the
 * user leaves first (`/quit`, Ctrl-C). End of input with no prompt is bad usage.
 */
async function firstPrompt(terminal: ChatTerminal): Promise<string | number> {
  for (;;) {
    const input = await terminal.next();
    if (input === null || input.type === "eof") {
      throw new UsageError("Missing PROMPT: give it as arguments or as the first line of input");
    }
    if (input.type === "interrupt") return EXIT_INTERRUPTED;
    const line = parseChatLine(input.text);
    switch (line.type) {
      case "send":
        return line.text;
      case "quit":
        return EXIT.ok;
      case "none":
        continue;
      case "unknown":
        terminal.notice(`Unknown command "${line.command}" (/help lists them)`);
        continue;
      default:
        terminal.notice("No session yet: type the first message, or /quit");
    }
  }
}
