/**
 * The `ui` stage's scripted agent (issue 38): Claude Code's stream-json
 * protocol on stdin/stdout, as tests/fixtures/stream_json_agent.ts speaks it.
 * A user turn's text picks what it does, then the turn ends and it waits for
 * the next:
 *
 *   big N CHARS        N assistant messages of CHARS characters each, the i-th ending "end of i"
 *   chatter N MS       N short assistant messages, one every MS ms (a busy agent)
 *   asks N MS          N permission requests for Bash, one at a time: the command of the i-th is
 *                      `approve-probe-i`; MS ms after each answer the next is asked
 */
import { LineSplitter } from "../../src/agents/line_splitter.ts";

const encoder = new TextEncoder();
const SESSION = "bench-conversation";
let turn = 0;
const waiters = new Map<string, () => void>();

function send(message: unknown): void {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  let offset = 0;
  while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
}

function message(text: string): void {
  send({
    type: "assistant",
    session_id: SESSION,
    message: { role: "assistant", content: [{ type: "text", text }] },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function onUser(text: string): Promise<void> {
  turn++;
  send({ type: "system", subtype: "init", session_id: SESSION, model: "bench-model" });
  const [command, count, size] = text.split(" ");
  const n = Number(count);
  if (command === "big") {
    const words = "lorem ipsum dolor sit amet ";
    for (let i = 0; i < n; i++) {
      const tail = `end of ${i}`;
      const body = words.repeat(Math.ceil(Number(size) / words.length));
      message(`${i} ${body}`.slice(0, Number(size) - tail.length) + tail);
    }
  } else if (command === "chatter") {
    for (let i = 0; i < n; i++) {
      message(`chatter ${i} from a busy agent`);
      await sleep(Number(size));
    }
  } else if (command === "asks") {
    for (let i = 0; i < n; i++) {
      const requestId = `req_${turn}_${i}`;
      const answered = new Promise<void>((resolve) => waiters.set(requestId, resolve));
      send({
        type: "control_request",
        request_id: requestId,
        request: {
          subtype: "can_use_tool",
          tool_name: "Bash",
          input: { command: `approve-probe-${i}` },
          tool_use_id: `toolu_${turn}_${i}`,
        },
      });
      await answered;
      await sleep(Number(size));
    }
  } else {
    message(`echo: ${text}`);
  }
  send({
    type: "result",
    subtype: "success",
    is_error: false,
    num_turns: turn,
    result: "done",
    session_id: SESSION,
    total_cost_usd: 0,
    usage: { input_tokens: 1, output_tokens: 1 },
  });
}

const lines = new LineSplitter(16 * 1024 * 1024);
for await (const text of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  for (const line of lines.push(text).lines.filter((line) => line.trim() !== "")) {
    const received = JSON.parse(line);
    if (received.type === "user") void onUser(received.message.content[0].text);
    if (received.type !== "control_response") continue;
    const id = received.response.request_id;
    waiters.get(id)?.();
    waiters.delete(id);
  }
}
