/** A wrong or missing setting: the process stops with its one-line message, no stack trace. */
export class ConfigError extends Error {
  override name = "ConfigError";
}
