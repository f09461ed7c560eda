// The packaged app as the command line (#31): `Spyglass --cli <command> [options]` runs `spyglass
// <command> [options]` (cli/spyglass.ts) in the app's own process without opening a window, and exits
// with its code — the way to the headless app where only the installed app exists (its fuses turn
// ELECTRON_RUN_AS_NODE off, so the bundled Node cannot be started any other way). Electron-free: index.ts
// hands it process.argv; test/main/cli-argv.test.ts reads it.

export const CLI_FLAG = '--cli';

/**
 * The command line's arguments when the app was started as the CLI, or null (the window app).
 *
 * Electron's process.argv is [the executable, …]; started as `electron <app folder or script> …` (not
 * packaged: `defaultApp`), the app's path comes next. `--cli` must be the first of the app's own
 * arguments: before it there may be only switches Chromium or the OS added (`--no-sandbox`, macOS's
 * `-psn_…`) and, not packaged, the app's path; everything after it is the CLI's, as typed (`--cli
 * --help`, `--cli balances --json`). A `--cli` after anything else (a bitcoin: link, say) is not asked for.
 */
export function cliArgsOf(argv: readonly string[], defaultApp: boolean): string[] | null {
  let appPathLeft = defaultApp ? 1 : 0;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === CLI_FLAG) return argv.slice(i + 1);
    if (a.startsWith('-')) continue;
    if (appPathLeft > 0) {
      appPathLeft--;
      continue;
    }
    return null;
  }
  return null;
}
