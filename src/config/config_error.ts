/**
 * A problem with how the daemon was started: a bad flag, home directory or
 * config file. The CLI prints its message and exits 2 (D1).
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}
