/**
 * `deno task agents:record [harness...]`: drives each real agent CLI directly
 * (no svc) in its protocol mode against the fake provider, and writes what
 * crossed its stdin and stdout to `tests/fixtures/agents/<harness>/<scenario>.jsonl`,
 * one `{"dir":"in"|"out","line":…}` per line, for the protocol adapters' tests.
 *
 * Each scenario runs in a fresh temporary working directory (not a git
 * repository, never trusted) with a fresh HOME; then stdin is closed and the
 * output recorded until the CLI exits. Needs `deno task agents:install` first.
 */
import { join } from "node:path";
import { agentsDir, type Harness, HARNESSES } from "./agents_install.ts";
import { redactText } from "../src/events/redact.ts";
import { findAgentBin } from "../tests/real_agents/agent_bins.ts";
import { prepareAgentEnv, SHELL_TOOL_CALLS } from "../tests/real_agents/agent_env.ts";
import {
  conversationTexts,
  type FakeProvider,
  offeredToolNames,
  type RecordedRequest,
  startFakeProvider,
} from "../tests/real_agents/fake_provider.ts";
import { AgentProcess, type TranscriptLine } from "./record_agents/agent_process.ts";
import { createProtocol, type Protocol } from "./record_agents/protocols.ts";

const FIXTURES = new URL("../tests/fixtures/agents/", import.meta.url);
const TURN_MS = 90_000;
const EXIT_MS = 20_000;

const SCENARIOS = ["two_turns", "tool_allow", "tool_deny", "interrupt"] as const;
type Scenario = typeof SCENARIOS[number];

/** What a scenario observed, printed as the run's summary. */
interface Outcome {
  notes: string[];
  exit: Deno.CommandStatus;
}

async function record(harness: Harness, scenario: Scenario): Promise<Outcome> {
  const bin = findAgentBin(harness);
  if (!bin) {
    throw new Error(
      `Cannot record: harness "${harness}" is not installed (run deno task agents:install)`,
    );
  }
  await using provider = await startFakeProvider();
  // HOME and CODEX_HOME must not be under /tmp (codex refuses its helper binaries there).
  const homes = join(agentsDir(), "homes");
  await Deno.mkdir(homes, { recursive: true });
  await using dirs = await temporaryDirs(homes);
  const env = await prepareAgentEnv(harness, { providerUrl: provider.url, dir: dirs.home });
  const protocol = createProtocol(harness, dirs.work);
  await using agent = AgentProcess.spawn(bin, protocol.args, { cwd: dirs.work, env });
  const notes: string[] = [];
  const turn = (text: string, options: TurnOptions = {}) =>
    runTurn(agent, protocol, text, { ...options, notes, provider });

  await protocol.open(agent);
  switch (scenario) {
    case "two_turns": {
      provider.script([{ text: "Hi there" }, { text: "Second answer" }]);
      await turn("hello");
      await turn("and again");
      const last = mainRequests(provider).at(-1);
      const history = last ? conversationTexts(last).join("\n") : "";
      if (!history.includes("hello") || !history.includes("Hi there")) {
        throw new Error(`Turn 2 of "${harness}" did not carry turn 1`);
      }
      break;
    }
    case "tool_allow":
    case "tool_deny": {
      const call = SHELL_TOOL_CALLS[harness];
      provider.script([{ toolCall: call }]);
      await turn("create a file", { permission: scenario === "tool_allow" ? "allow" : "deny" });
      const offered = offeredToolNames(mainRequests(provider)[0]);
      if (!offered.includes(call.name)) {
        throw new Error(`"${harness}" was not offered tool "${call.name}": ${offered.join(", ")}`);
      }
      const created = await exists(join(dirs.work, "created.txt"));
      notes.push(`created.txt ${created ? "exists" : "does not exist"}`);
      break;
    }
    case "interrupt":
      provider.script([{ hang: true }]);
      await turn("wait forever", { interrupt: true });
      break;
  }
  notes.push(`usage reported: ${JSON.stringify(provider.usageReported)}`);
  if (provider.unhandled.length > 0) {
    notes.push(`unhandled requests: ${provider.unhandled.join(", ")}`);
  }
  const exit = await agent.closeAndWait(EXIT_MS);
  await writeTranscript(harness, scenario, agent.transcript);
  return { notes, exit };
}

interface TurnOptions {
  permission?: "allow" | "deny";
  interrupt?: boolean;
}

/**
 * Sends one prompt and answers what the agent asks until the turn ends:
 * permission requests as `options.permission` says, anything else with an error.
 */
async function runTurn(
  agent: AgentProcess,
  protocol: Protocol,
  text: string,
  options: TurnOptions & { notes: string[]; provider: FakeProvider },
): Promise<void> {
  let from = agent.received;
  await protocol.prompt(agent, text);
  if (options.interrupt) {
    await options.provider.waitForRequest((r) => !r.side, TURN_MS);
    await protocol.cancel(agent);
  }
  let asked = false;
  while (true) {
    const message = await agent.waitFor(
      (m) => protocol.classify(m) !== "other",
      { from, timeoutMs: TURN_MS, what: `the end of the turn "${text}"` },
    );
    from = message.seq + 1;
    const kind = protocol.classify(message);
    if (kind === "turn_end") {
      options.notes.push(`turn "${text}" ended with: ${message.line}`);
      break;
    }
    if (kind === "permission" && options.permission) {
      asked = true;
      await protocol.answerPermission(agent, message, options.permission === "allow");
    } else {
      options.notes.push(`answered an unexpected request with an error: ${message.line}`);
      await protocol.refuse(agent, message);
    }
  }
  if (options.permission && !asked) options.notes.push("the agent did not ask permission");
}

function mainRequests(provider: FakeProvider): RecordedRequest[] {
  return provider.requests.filter((r) => !r.side);
}

async function temporaryDirs(homes: string) {
  const home = await Deno.makeTempDir({ dir: homes, prefix: "home-" });
  const work = await Deno.makeTempDir({ prefix: "svc-agent-work-" });
  return {
    home,
    work,
    [Symbol.asyncDispose]: async () => {
      for (const dir of [home, work]) await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function writeTranscript(harness: Harness, scenario: Scenario, lines: TranscriptLine[]) {
  const leaked = lines.find((l) => redactText(l.line) !== l.line);
  if (leaked) {
    throw new Error(`A secret-looking value in the ${harness} transcript: ${leaked.line}`);
  }
  const dir = new URL(`${harness}/`, FIXTURES);
  await Deno.mkdir(dir, { recursive: true });
  const text = lines.map((l) => JSON.stringify(l) + "\n").join("");
  await Deno.writeTextFile(new URL(`${scenario}.jsonl`, dir), text);
}

/** Records every scenario of the harnesses named in `args` (all by default); returns the exit code. */
async function main(args: string[]): Promise<number> {
  const unknown = args.filter((arg) => !(HARNESSES as string[]).includes(arg));
  if (unknown.length > 0) {
    console.error(`Unknown harness "${unknown[0]}" (known: ${HARNESSES.join(", ")})`);
    return 2;
  }
  let failed = false;
  for (const harness of args.length > 0 ? args as Harness[] : HARNESSES) {
    for (const scenario of SCENARIOS) {
      try {
        const { notes, exit } = await record(harness, scenario);
        console.log(
          `${harness}/${scenario}: exit ${exit.code}${exit.signal ? ` (${exit.signal})` : ""}`,
        );
        for (const note of notes) console.log(`  ${note}`);
      } catch (error) {
        failed = true;
        console.error(`${harness}/${scenario}: ${error instanceof Error ? error.message : error}`);
      }
    }
  }
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
