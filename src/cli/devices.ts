/** `svc devices pair|list|revoke` (D30): the devices that may use the web face. */
// @ts-types="@types/qrcode"
import QRCode from "qrcode";
import type { DeviceView } from "../web/devices.ts";
import { CLIENT_OPTIONS, parseCommandArgs } from "./args.ts";
import { type Command, type Io, pickSubcommand, type Subcommand, UsageError } from "./command.ts";
import { withClient } from "./connect.ts";
import { localTime, printList, printResponse, table, TIME_OPTIONS } from "./output.ts";
import { DEVICE_SCOPES, type DeviceScope } from "../policy/device_scopes.ts";

export const devicesCommand: Command = {
  name: "devices",
  summary: "Pair a browser or phone with the web face, list and revoke paired devices",
  usage: `Usage: svc devices <subcommand> [--home DIR] [--json]

Subcommands:
  pair [--name NAME] [--scope read|approve|operate] [--expires 30d]
      Prints a URL (one per web.origins entry too) and its QR code: open it on the
      device within 5 minutes. The one-use code is in the URL's fragment, which a
      browser never sends. --scope: read (the default) sees everything TCP shows;
      approve also answers permission requests and interrupts turns; operate also
      launches, sends input, resumes, closes, kills, lands, discards and runs
      routines. --expires: the device expires when unused this long (m, h or d;
      default 30d); it never lives more than 90 days. Needs the daemon's TCP
      listener (svc serve --tcp 127.0.0.1:PORT). --json prints
      { "url", "urls", "code", "expiresAt" } (the code's expiry).
  list [--utc]
      ID, name, scopes, created, last seen, last peer and expiry of each device.
  revoke ID | --all
      The device's open streams end at once; its next request is refused.

Only the owner's socket can pair, list or revoke devices (docs/web.md).`,
  run(args, io) {
    const { run, rest } = pickSubcommand(SUBCOMMANDS, args);
    return run(rest, io);
  },
};

const SUBCOMMANDS: Record<string, Subcommand> = { pair, list, revoke };

interface PairingCode {
  url: string;
  urls: string[];
  code: string;
  expiresAt: string;
}

async function pair(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, {
    ...CLIENT_OPTIONS,
    name: { type: "string" },
    scope: { type: "string" },
    expires: { type: "string" },
  });
  if (values.scope !== undefined && !(DEVICE_SCOPES as readonly string[]).includes(values.scope)) {
    throw new UsageError(`--scope "${values.scope}" is not one of ${DEVICE_SCOPES.join(", ")}`);
  }
  const request = {
    ...(values.name === undefined ? {} : { name: values.name }),
    ...(values.scope === undefined ? {} : { scope: values.scope as DeviceScope }),
    ...(values.expires === undefined ? {} : { idleSeconds: durationSeconds(values.expires) }),
  };
  return await withClient(values.home, io, async (client) => {
    const response = await client.post<PairingCode>("/devices/pairing-codes", request);
    if (!response.ok || values.json) return printResponse(io, response, values.json, () => "");
    const { url, urls, expiresAt } = response.body;
    const qr = await QRCode.toString(url, { type: "terminal", small: true });
    // Drawn as is: the QR code is made here, from the daemon's URL, of block characters.
    io.out(qr);
    return printResponse(io, response, false, () =>
      [
        `Open on the device within 5 minutes (until ${localTime(expiresAt)}):`,
        ...urls.map((each) => `  ${each}`),
        "The code works once. Anyone who sees it before then can pair: do not share it.",
      ].join("\n"));
  });
}

async function list(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, { ...CLIENT_OPTIONS, ...TIME_OPTIONS });
  const time = (iso: string | null) => values.utc ? localTime(iso, "UTC") : localTime(iso);
  return await withClient(values.home, io, async (client) => {
    const response = await client.get<{ devices: DeviceView[] }>("/devices");
    return printList(
      io,
      response,
      values.json,
      (body) => body.devices,
      (body) =>
        body.devices.length === 0 ? "No paired devices" : table(
          ["ID", "NAME", "SCOPES", "CREATED", "LAST SEEN", "LAST PEER", "EXPIRES"],
          body.devices.map((device) => [
            device.id,
            device.name,
            device.scopes.join(","),
            time(device.createdAt),
            time(device.lastSeenAt),
            device.lastPeer ?? "-",
            time(device.expiresAt),
          ]),
        ),
    );
  });
}

async function revoke(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    { ...CLIENT_OPTIONS, all: { type: "boolean" } },
    { positionals: 1 },
  );
  const id = positionals[0];
  if ((id === undefined) === (values.all !== true)) {
    throw new UsageError("Name one device ID, or --all");
  }
  return await withClient(values.home, io, async (client) => {
    const response = await client.post<{ revoked: string[] }>(
      "/devices/revoke",
      id === undefined ? { all: true } : { id },
    );
    return printResponse(
      io,
      response,
      values.json,
      (body) =>
        body.revoked.length === 0 ? "No device to revoke" : `Revoked ${body.revoked.join(", ")}`,
    );
  });
}

/** `30d`, `12h`, `90m` as seconds; a usage error otherwise or past 90 days. */
export function durationSeconds(text: string): number {
  const match = /^(\d{1,5})([mhd])$/.exec(text);
  if (!match) throw new UsageError(`--expires "${text}" is not a duration such as 30d, 12h or 90m`);
  const seconds = Number(match[1]) * { m: 60, h: 3600, d: 86_400 }[match[2] as "m" | "h" | "d"];
  if (seconds < 60 || seconds > 90 * 86_400) {
    throw new UsageError(`--expires "${text}" must be from 1m to 90d`);
  }
  return seconds;
}
