/**
 * A valid routine definition (C2.6) for tests: PAUSED (it runs only when a
 * test asks), daily at 03:00 UTC, five minutes, the fixture harness;
 * `overrides` win.
 */
export function routineDefinition(
  id: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    schemaVersion: 1,
    id,
    name: id,
    status: "PAUSED",
    rrule: "FREQ=DAILY;BYHOUR=3",
    timezone: "utc",
    misfire: "latest",
    overlap: "forbid",
    timeoutMinutes: 5,
    runtime: "fixture",
    prompt: "exit 0",
    ...overrides,
  };
}
