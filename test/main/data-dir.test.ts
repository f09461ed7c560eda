// The data folder rule `npm start` (index.ts) and `npm run web` (web.ts) share (electron/main/data-dir.ts),
// and `npm run web`'s strict command line. The built process itself: test/e2e/web-data-dir.e2e.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appDataDir, dataDirOverride, webDataDir } from '../../electron/main/data-dir';
import { parseWebArgs } from '../../electron/main/web';

const CWD = '/home/ada/wallets';
const env = (vars: Record<string, string> = {}): NodeJS.ProcessEnv => ({ HOME: '/home/ada', ...vars });

describe('the data folder: --data-dir, then SPYGLASS_DATA_DIR, then the default', () => {
  it('nothing asked: null (each shell keeps its default)', () => {
    expect(dataDirOverride(['node', 'web.js'], env(), CWD)).toBeNull();
    expect(dataDirOverride([], env({ SPYGLASS_DATA_DIR: '' }), CWD)).toBeNull();
    expect(dataDirOverride([], env({ SPYGLASS_DATA_DIR: '   ' }), CWD)).toBeNull();
  });

  it('SPYGLASS_DATA_DIR, absolute or from the folder the command was typed in', () => {
    expect(dataDirOverride([], env({ SPYGLASS_DATA_DIR: '/srv/spyglass/' }), CWD)).toEqual({ dir: '/srv/spyglass', from: 'environment' });
    expect(dataDirOverride([], env({ SPYGLASS_DATA_DIR: 'second' }), CWD)).toEqual({ dir: '/home/ada/wallets/second', from: 'environment' });
    // npm runs scripts in the project folder and names the folder it was started in INIT_CWD
    expect(dataDirOverride([], env({ SPYGLASS_DATA_DIR: 'second', INIT_CWD: '/tmp/typed-here' }))).toEqual({ dir: '/tmp/typed-here/second', from: 'environment' });
  });

  it('--data-dir DIR and --data-dir=DIR win over SPYGLASS_DATA_DIR', () => {
    const e = env({ SPYGLASS_DATA_DIR: '/from/env' });
    expect(dataDirOverride(['--port', '0', '--data-dir', '/from/arg'], e, CWD)).toEqual({ dir: '/from/arg', from: 'argument' });
    expect(dataDirOverride(['--data-dir=rel'], e, CWD)).toEqual({ dir: '/home/ada/wallets/rel', from: 'argument' });
    expect(dataDirOverride(['--data-dir', 'a', '--data-dir=./a'], e, CWD)).toEqual({ dir: '/home/ada/wallets/a', from: 'argument' });
    // a lookalike of another program is not ours
    expect(dataDirOverride(['--user-data-dir=/x'], env(), CWD)).toBeNull();
  });

  it('a missing, empty or contradicting --data-dir: an error that says how to write it', () => {
    expect(() => dataDirOverride(['--data-dir'], env(), CWD)).toThrow('--data-dir needs a folder: --data-dir DIR');
    expect(() => dataDirOverride(['--data-dir', '--demo'], env(), CWD)).toThrow('--data-dir needs a folder: --data-dir DIR');
    expect(() => dataDirOverride(['--data-dir='], env(), CWD)).toThrow('--data-dir needs a folder, and got an empty one: --data-dir DIR');
    expect(() => dataDirOverride(['--data-dir', '/a', '--data-dir', '/b'], env(), CWD)).toThrow('--data-dir is given twice, with different folders (/a and /b): give one');
  });

  it("the default is Spyglass-web in the platform's per-user config folder, as Electron's appData", () => {
    expect(appDataDir(env(), 'linux', '/home/ada')).toBe('/home/ada/.config');
    expect(appDataDir(env({ XDG_CONFIG_HOME: '/home/ada/cfg' }), 'linux', '/home/ada')).toBe('/home/ada/cfg');
    expect(appDataDir(env(), 'darwin', '/Users/ada')).toBe('/Users/ada/Library/Application Support');
    expect(appDataDir(env({ APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }), 'win32', 'C:\\Users\\ada')).toBe('C:\\Users\\ada\\AppData\\Roaming');
    expect(webDataDir([], env({ XDG_CONFIG_HOME: '/home/ada/cfg' }))).toBe(process.platform === 'linux' ? '/home/ada/cfg/Spyglass-web' : join(appDataDir(env({ XDG_CONFIG_HOME: '/home/ada/cfg' })), 'Spyglass-web'));
    expect(webDataDir(['--data-dir', '/x'], env({ XDG_CONFIG_HOME: '/home/ada/cfg' }))).toBe('/x');
  });
});

describe('npm run web: its command line', () => {
  const e = env({ XDG_CONFIG_HOME: '/cfg', INIT_CWD: CWD });
  const parse = (...argv: string[]): ReturnType<typeof parseWebArgs> => parseWebArgs(argv, e, '/app/out/main');

  it('no argument: no demo, a free port, the built renderer, the default data folder', () => {
    expect(parse()).toEqual({ dataDir: process.platform === 'linux' ? '/cfg/Spyglass-web' : webDataDir([], e), staticDir: '/app/out/renderer', port: 0, demo: false, uri: null, help: false });
  });

  it('--demo, --port, --static, --data-dir, a bitcoin: link; --no-demo is the default, still accepted', () => {
    const uri = 'bitcoin:bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080?amount=0.1';
    expect(parse('--demo', '--port', '8123', '--static', '/srv/renderer', '--data-dir', 'mine', uri)).toEqual({ dataDir: `${CWD}/mine`, staticDir: '/srv/renderer', port: 8123, demo: true, uri, help: false });
    expect(parse('--no-demo').demo).toBe(false);
    expect(parse('--static', 'build/renderer').staticDir).toBe(`${CWD}/build/renderer`);
    expect(parse('--data-dir=/d').dataDir).toBe('/d');
    expect(parse('--help').help).toBe(true);
  });

  it('an unknown option or a bad value is refused with the usage, never ignored', () => {
    expect(() => parse('--demoo')).toThrow(/^unknown option "--demoo"\nusage: npm run web/);
    expect(() => parse('extra')).toThrow(/^unknown argument "extra"\nusage: npm run web/);
    expect(() => parse('--port')).toThrow(/^--port needs a value\n/);
    expect(() => parse('--port', '80a')).toThrow('--port needs a port number from 0 to 65535 (0: any free port), not "80a"');
    expect(() => parse('--port', '70000')).toThrow('--port needs a port number from 0 to 65535 (0: any free port), not "70000"');
    expect(() => parse('--data-dir')).toThrow('--data-dir needs a folder: --data-dir DIR');
  });
});
