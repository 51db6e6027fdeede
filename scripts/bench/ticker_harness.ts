/**
 * The latency harness: writes `tick <n> <epoch ms>` lines on stdout, one every
 * INTERVAL ms, COUNT times (the time is `performance.timeOrigin + now()`, sub-ms
 * and comparable across processes on one host). The prompt is "COUNT INTERVAL".
 */
const [count, interval] = (Deno.args[0] ?? "100 20").split(" ").map(Number);
const encoder = new TextEncoder();
for (let n = 0; n < count; n++) {
  const line = encoder.encode(
    `tick ${n} ${(performance.timeOrigin + performance.now()).toFixed(3)}\n`,
  );
  let offset = 0;
  while (offset < line.length) offset += await Deno.stdout.write(line.subarray(offset));
  await new Promise((resolve) => setTimeout(resolve, interval));
}
