// Where the app keeps its data (spyglass.sqlite, logs/, window-state.json): one rule for `npm start`
// (the Electron shell, index.ts) and `npm run web` (web.ts). First `--data-dir DIR` (or
// `--data-dir=DIR`) on the command line, then the SPYGLASS_DATA_DIR environment variable, then each
// one's own default: Electron's userData folder, or `Spyglass-web` in the same per-user config folder
// for the browser app (its own profiles, so that it never opens the SQLite file of a running window).
// Plain Node: no Electron import.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export const DATA_DIR_FLAG = '--data-dir';
export const DATA_DIR_ENV = 'SPYGLASS_DATA_DIR';

/** A data folder asked for in a way that cannot be used: the message says what to write instead. */
export class DataDirError extends Error {
  override name = 'DataDirError';
}

export interface DataDirChoice {
  dir: string;
  from: 'argument' | 'environment';
}

/**
 * The data folder the command line or the environment asks for, absolute, or null for the default.
 * A relative folder is taken from where the command was typed: npm runs scripts in the project folder
 * but tells them the folder it was started in (INIT_CWD).
 */
export function dataDirOverride(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, cwd: string = env['INIT_CWD'] || process.cwd()): DataDirChoice | null {
  let fromArg: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    let value: string | undefined;
    if (a === DATA_DIR_FLAG) {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new DataDirError(`${DATA_DIR_FLAG} needs a folder: ${DATA_DIR_FLAG} DIR`);
      i++;
    } else if (a.startsWith(`${DATA_DIR_FLAG}=`)) {
      value = a.slice(DATA_DIR_FLAG.length + 1);
    } else continue;
    if (value.trim() === '') throw new DataDirError(`${DATA_DIR_FLAG} needs a folder, and got an empty one: ${DATA_DIR_FLAG} DIR`);
    if (fromArg !== null && resolve(cwd, value) !== fromArg) throw new DataDirError(`${DATA_DIR_FLAG} is given twice, with different folders (${fromArg} and ${resolve(cwd, value)}): give one`);
    fromArg = resolve(cwd, value);
  }
  if (fromArg !== null) return { dir: fromArg, from: 'argument' };
  const fromEnv = env[DATA_DIR_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return { dir: isAbsolute(fromEnv) ? resolve(fromEnv) : resolve(cwd, fromEnv), from: 'environment' };
  return null;
}

/** The per-user folder applications keep their settings in, as Electron's `app.getPath('appData')`. */
export function appDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  if (platform === 'win32') return env['APPDATA'] || join(home, 'AppData', 'Roaming');
  return env['XDG_CONFIG_HOME'] || join(home, '.config');
}

/** `npm run web`'s data folder: the override, or `<appData>/Spyglass-web`. */
export function webDataDir(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  return dataDirOverride(argv, env)?.dir ?? join(appDataDir(env), 'Spyglass-web');
}
