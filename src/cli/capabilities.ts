import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import type { Command } from "./command.ts";
import { connect } from "./connect.ts";
import { printList, table } from "./output.ts";
import type { CapabilityRecord } from "../sessions/capabilities.ts";

/** `svc capabilities`: what the daemon offers (C2.4, D5). */
export const capabilitiesCommand: Command = {
  name: "capabilities",
  summary: "List the daemon's capabilities and harnesses",
  usage: `Usage: svc capabilities [--home DIR] [--json]

--json prints the capability records as an array.`,
  async run(args, io) {
    const { values } = parseCommandArgs(args, CLIENT_OPTIONS);
    const { client } = await connect(values.home, io);
    try {
      const response = await client.get<{ capabilities: CapabilityRecord[] }>("/capabilities");
      return printList(io, response, values.json, (body) => body.capabilities, (body) =>
        table(
          ["ID", "STATUS", "OWNER", "POLICY"],
          body.capabilities.map((c) => [c.id, c.status, c.owner, c.policy]),
        ));
    } finally {
      client.close();
    }
  },
};
