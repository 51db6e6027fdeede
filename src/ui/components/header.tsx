/** The header of every view: the daemon, the fleet in numbers, the views and the banner. */
import { Box, Text } from "ink";
import { age, money } from "../format.ts";
import { type View, VIEW_TITLES, VIEWS } from "../keymap.ts";
import { hostsBanners, type HostsSnapshot } from "../hosts.ts";
import { nextRoutineDue } from "../model.ts";
import { useTint } from "./theme.ts";

export function Header(
  props: { snapshot: HostsSnapshot; view: View; attention: number; nowMs: number },
) {
  const tint = useTint();
  const { snapshot, nowMs } = props;
  const live = [...snapshot.sessions.values()].filter((s) => s.status === "running").length;
  const next = nextRoutineDue(snapshot.routines);
  const away = snapshot.hosts.filter((host) => host.connection !== "connected").length;
  const facts = [
    snapshot.hosts.length > 1
      ? `svc · ${snapshot.hosts.length} hosts${away > 0 ? ` (${away} away)` : ""}`
      : snapshot.daemon
      ? `svc ${snapshot.daemon.svcVersion} · up ${
        age(Date.parse(snapshot.daemon.startedAt), nowMs)
      }`
      : "svc",
    `${live} live`,
    `${snapshot.approvals.length} pending`,
    next ? `next ${next.id} in ${age(nowMs, next.at)}` : "no routine due",
    `today ${money(snapshot.todayCostUsd)}`,
  ];
  const counts: Partial<Record<View, number>> = {
    attention: props.attention,
    approvals: snapshot.approvals.length,
    inbox: snapshot.inbox.filter((entry) => entry.readAt === null).length,
  };
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end" bold>{facts.join(" · ")}</Text>
      <Text wrap="truncate-end">
        {VIEWS.map((view, index) => {
          const count = counts[view];
          const label = `${view === "new" ? "c" : index + 1} ${VIEW_TITLES[view]}${
            count ? `(${count})` : ""
          }`;
          return (
            <Text key={view}>
              <Text inverse={view === props.view} bold={view === props.view}>{label}</Text>
              {index < VIEWS.length - 1 ? " " : ""}
            </Text>
          );
        })}
      </Text>
      {hostsBanners(snapshot).map((banner, index) => (
        <Text
          key={index}
          wrap="truncate-end"
          color={tint(banner.away ? "red" : "yellow")}
          bold
        >
          {banner.text}
        </Text>
      ))}
    </Box>
  );
}
