import type { SessionRecord } from "../store/sessions_store.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { converse } from "./chat_loop.ts";
import { openTerminal } from "./chat_terminal.ts";
import { type Command, EXIT, type Io, UsageError } from "./command.ts";
import type { SvcClient } from "../client/client.ts";
import { withClient } from "./connect.ts";
import { describeError } from "./output.ts";
import { offerResume } from "./resume_offer.ts";
import { resolveSessionId } from "./id_prefix.ts";

/** `svc attach SESSION`: the conversation of an existing session in this terminal (D16, D17). */
export const attachCommand: Command = {
  name: "attach",
  summary: "Join a session's conversation in this terminal",
  usage: `Usage: svc attach SESSION [--resume] [--home DIR]

Prints the transcript of SESSION so far, then follows it as "svc chat" does:
each line typed is the next turn; /close, /quit, /interrupt, /help, Ctrl-C and
the answers to a permission request (y, n, a) work the same. When stdin is not a terminal its lines are the turns and its
end closes the session (follow a session without touching it with
"svc events SESSION --follow"). An ended session's transcript is printed.
An ended conversation that can be resumed is offered to be: in a terminal
svc asks; --resume resumes it without asking (D26).
Exits 0 when the session completed or on detach, 1 when it ended otherwise.`,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      home: CLIENT_OPTIONS.home,
      resume: { type: "boolean" },
    }, { positionals: 1 });
    const sessionText = positionals[0];
    if (sessionText === undefined) throw new UsageError("Missing SESSION");
    return await withClient(
      values.home,
      io,
      async (client) =>
        await joinSession(client, await resolveSessionId(client, sessionText), io, values),
    );
  },
};

/**
 * The conversation of session `sessionId` in this terminal (attach, and
 * `svc chat SESSION`): an ended conversation is offered to be resumed (D26),
 * then the transcript is followed and each line typed is the next turn.
 */
export async function joinSession(
  client: SvcClient,
  sessionId: string,
  io: Io,
  options: { home?: string; resume?: boolean },
): Promise<number> {
  const response = await client.get<SessionRecord>(`/sessions/${encodeURIComponent(sessionId)}`);
  if (!response.ok) {
    io.err(describeError(response.body));
    return EXIT.refused;
  }
  const terminal = openTerminal(io);
  try {
    const session = await offerResume(client, response.body, terminal, {
      resume: options.resume === true,
    });
    if (session === null) return EXIT.refused;
    return await converse(client, session, terminal, { home: options.home });
  } finally {
    terminal.close();
  }
}
