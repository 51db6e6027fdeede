/** How an external command ended, or why it could not start. */
export type CommandOutcome =
  | {
    readonly started: true;
    readonly code: number;
    readonly stdout: string;
    readonly stderr: string;
  }
  | { readonly started: false; readonly reason: string };

/**
 * Runs the service manager's commands (`systemctl`, `launchctl`,
 * `schtasks`). One real implementation; tests hand in a fake so they need no
 * service manager.
 */
export interface CommandRunner {
  run(argv: readonly string[]): Promise<CommandOutcome>;
}

/** Runs argv with `Deno.Command`: no shell, stdin closed, output collected. */
export const denoCommandRunner: CommandRunner = {
  async run(argv) {
    const [program, ...args] = argv;
    try {
      const output = await new Deno.Command(program, {
        args,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decoder = new TextDecoder();
      return {
        started: true,
        code: output.code,
        stdout: decoder.decode(output.stdout),
        stderr: decoder.decode(output.stderr),
      };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return { started: false, reason: `"${program}" is not installed or not on PATH` };
      }
      if (error instanceof Deno.errors.PermissionDenied) {
        return { started: false, reason: `"${program}" cannot be executed (permission denied)` };
      }
      throw error;
    }
  },
};
