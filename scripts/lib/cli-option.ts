// The `--name value` options of the bench scripts, read from this process's arguments.
const argv = process.argv.slice(2);

/** The value after `--name`, or `fallback` when the option is absent or has no value. */
export function cliOption(name: string, fallback: string): string {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] !== undefined ? (argv[at + 1] as string) : fallback;
}
