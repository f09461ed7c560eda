/**
 * `Spyglass --cli …` (#31): which start of the app is the command line (electron/main/cli-argv.ts).
 * Electron itself cannot run on this machine (no binary can be downloaded here), so the shell
 * (electron/main/index.ts) is checked by reading it: it asks cliArgsOf first and runs either the CLI or
 * the window app, never both. What the CLI then does is the same main() the built out/main/cli.js runs
 * (test/cli/spyglass-*.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_FLAG, cliArgsOf } from '../../electron/main/cli-argv';

const EXE = '/opt/Spyglass/spyglass';
const ELECTRON = '/usr/lib/electron/electron';

describe('cliArgsOf: the packaged app (argv = [the executable, …the arguments])', () => {
  it('--cli first: everything after it is the CLI’s, as typed', () => {
    expect(cliArgsOf([EXE, '--cli', 'balances', '--json'], false)).toEqual(['balances', '--json']);
    expect(cliArgsOf([EXE, '--cli', 'drafts', 'broadcast', 'd_1', '--yes', '--data-dir', '/tmp/x'], false)).toEqual(['drafts', 'broadcast', 'd_1', '--yes', '--data-dir', '/tmp/x']);
    expect(cliArgsOf([EXE, '--cli', '--help'], false)).toEqual(['--help']);
    // a second --cli is the CLI's own argument (it refuses it as an unknown option)
    expect(cliArgsOf([EXE, '--cli', 'balances', '--cli'], false)).toEqual(['balances', '--cli']);
  });

  it('--cli alone: the CLI with no arguments (which prints its usage, exit 2)', () => {
    expect(cliArgsOf([EXE, CLI_FLAG], false)).toEqual([]);
  });

  it('switches Chromium or the OS put before it are passed over', () => {
    expect(cliArgsOf([EXE, '--no-sandbox', '--cli', 'refresh'], false)).toEqual(['refresh']);
    expect(cliArgsOf([EXE, '-psn_0_12345', '--cli', 'refresh'], false)).toEqual(['refresh']);
  });

  it('the window app: no --cli, or --cli after an argument of the app’s (a link, a data folder)', () => {
    expect(cliArgsOf([EXE], false)).toBeNull();
    expect(cliArgsOf([EXE, '--data-dir', '/tmp/x'], false)).toBeNull();
    expect(cliArgsOf([EXE, 'bitcoin:bcrt1qexample?amount=1', '--cli', 'refresh'], false)).toBeNull();
    expect(cliArgsOf([EXE, '--data-dir', '/tmp/x', '--cli', 'refresh'], false)).toBeNull();
    expect(cliArgsOf([EXE, '--clip'], false)).toBeNull();
    expect(cliArgsOf([EXE, '--cli=balances'], false)).toBeNull();
  });
});

describe('cliArgsOf: not packaged (`electron <app> …`: argv = [electron, the app’s path, …])', () => {
  it('the app’s path is passed over once', () => {
    expect(cliArgsOf([ELECTRON, 'out/main/index.js', '--cli', 'balances'], true)).toEqual(['balances']);
    expect(cliArgsOf([ELECTRON, '.', '--cli', 'profile', 'list'], true)).toEqual(['profile', 'list']);
    expect(cliArgsOf([ELECTRON, '--no-sandbox', '.', '--cli', 'refresh'], true)).toEqual(['refresh']);
  });

  it('the window app otherwise', () => {
    expect(cliArgsOf([ELECTRON, '.'], true)).toBeNull();
    expect(cliArgsOf([ELECTRON, '.', 'bitcoin:bcrt1qexample', '--cli'], true)).toBeNull();
  });
});

describe('the shell (electron/main/index.ts, read: Electron cannot run here)', () => {
  const src = readFileSync(new URL('../../electron/main/index.ts', import.meta.url), 'utf8');

  it('asks cliArgsOf at start and runs the CLI or the window app, never both', () => {
    expect(src).toMatch(/const cliArgs = cliArgsOf\(process\.argv, process\.defaultApp === true\);\nif \(cliArgs !== null\) void runCli\(cliArgs\);\nelse startWindowApp\(\);/);
    // nothing of the window app runs at the top level: the sandbox, the lock and the data folder are in startWindowApp
    const top = src.slice(0, src.indexOf('function startWindowApp('));
    for (const call of ['app.enableSandbox()', 'requestSingleInstanceLock', 'dataDirOverride(process.argv', 'createWindow()']) {
      // a statement at the top level (not inside a function, not a declaration or a comment)
      expect(top.split('\n').filter((l) => !/^(\s|\/\/|\/\*|\*|import |export |(async )?function )/.test(l) && l.includes(call)), call).toEqual([]);
    }
  });

  it('the CLI is the same main() as `npm run -s spyglass`, and the app exits with its code', () => {
    const run = src.slice(src.indexOf('async function runCli('), src.indexOf('function startWindowApp('));
    expect(run).toContain("await import('../../cli/spyglass')");
    expect(run).toContain('code = await main(args)');
    expect(run).toContain('app.exit(code)');
    expect(run).not.toContain('createWindow');
  });
});
