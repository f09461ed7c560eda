// One run of `npm run -s spyglass`: the app's own main-process services (electron/main/app.ts, the
// object the Electron shell and `npm run web` build) on the app's data folder, and the IPC channels
// called on it — so a reply printed with --json has the IPC reply's field names, and what a script does
// shows in the app. Heavy work runs inline (no worker threads for a one-shot command); the chain
// monitor is not started.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
// cli/ imports shared/ and Node only — except this file (an exception in eslint.config.js), which is the app without its window: it
// builds the app's own services (electron/main/app.ts, Electron-free) and follows its data-folder rule.
import type { SpyglassApp } from '../../electron/main/app';
import { appDataDir, DataDirError, dataDirOverride } from '../../electron/main/data-dir';
import type { Channel, ConnectionState, Reply, Request } from '../../shared/ipc/contract';
import { Refused, UsageError } from './args';

/** The password for a profile whose password is not in the keychain, for this run only. */
export const PASSWORD_ENV = 'SPYGLASS_RPC_PASSWORD';

/**
 * The data folder: `--data-dir`, else SPYGLASS_DATA_DIR, else the desktop app's own (Electron's
 * userData, `~/.config/Spyglass` on Linux), so that the command and the app share their profiles.
 */
export function cliDataDir(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  try {
    return dataDirOverride(argv, env)?.dir ?? join(appDataDir(env), 'Spyglass');
  } catch (e) {
    if (e instanceof DataDirError) throw new UsageError(e.message);
    throw e;
  }
}

/** One line: the reason a script logs. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

export class Ctx {
  #app: SpyglassApp | null = null;
  #connected: ConnectionState | null = null;

  constructor(
    readonly dataDir: string,
    readonly json: boolean,
    readonly quiet: boolean,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /**
   * The app's services, made on first use: loaded then (a dynamic import), so that --help and bad
   * usage answer without loading them.
   */
  async app(): Promise<SpyglassApp> {
    if (this.#app) return this.#app;
    const { createApp } = await import('../../electron/main/app');
    mkdirSync(this.dataDir, { recursive: true });
    const app = createApp({
      dataDir: this.dataDir,
      info: { version: process.env['npm_package_version'] ?? '0.1.0', platform: process.platform, bridge: false },
      psbtWorker: 'inline',
      importWorker: 'inline',
      scanWorker: 'inline',
      pollMs: null,
    });
    app.services.on('refresh:progress', (p) => this.progress(`refresh: ${p.phase} ${p.done}/${p.total}`));
    app.services.on('wallet:scan', (p) => {
      if (p.scanning) this.progress(`rescan of ${p.walletName}: ${p.progress === null ? 'running' : `${Math.round(p.progress * 100)} %`}`);
    });
    this.#app = app;
    return app;
  }

  /**
   * One IPC channel's reply, or: its input refused (`input.invalid`, not the signer's) → UsageError (exit 2); any other
   * failure (the node, the keychain, the state) → Refused (exit 1). The message is the app's own.
   */
  async call<C extends Channel>(channel: C, payload: Request<C>): Promise<Reply<C>> {
    const r = await (await this.app()).dispatch(channel, payload);
    if (r.ok) return r.value as Reply<C>;
    const message = oneLine(r.error.message);
    // the signer program's and the device's failures (no device, locked, declined, another device) are
    // refusals, though the service names them input.invalid; the input itself was fine
    if (r.error.code === 'input.invalid' && r.error.detail?.['signer'] === undefined) throw new UsageError(message);
    throw new Refused(message);
  }

  /**
   * Connects to the active profile as the app does at startup. A profile whose password is not kept
   * (session only) takes it from SPYGLASS_RPC_PASSWORD for this run. `required`: anything but
   * connected is refused with the connection's own reason; otherwise the state is returned (offline
   * commands then show the last data, marked so).
   */
  async connect(required: boolean): Promise<ConnectionState> {
    if (this.#connected) return this.#connected;
    let state = await (await this.app()).services.start();
    const envPassword = this.env[PASSWORD_ENV];
    if (state.state === 'needs-password' && envPassword) {
      this.progress(`using the RPC password from ${PASSWORD_ENV}`);
      state = await this.call('profiles:unlock', { id: state.profileId, password: envPassword, remember: 'session' });
    }
    this.#connected = state;
    if (required && state.state !== 'connected') throw new Refused(notConnected(state));
    return state;
  }

  progress(text: string): void {
    if (!this.quiet) process.stderr.write(`${text}\n`);
  }

  /** The result: `json` as one JSON document with --json, else the human text. */
  print(human: string | (() => string), json: unknown): void {
    if (this.json) process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    else {
      const text = typeof human === 'string' ? human : human();
      if (text !== '') process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
  }

  async close(): Promise<void> {
    const app = this.#app;
    this.#app = null;
    if (app) await app.close();
  }
}

export function notConnected(state: ConnectionState): string {
  switch (state.state) {
    case 'none':
      return 'no node is set up: add one with `spyglass profile add` first';
    case 'needs-password':
      return `the RPC password of this profile is not in the keychain: give it in ${PASSWORD_ENV}, or save it with \`spyglass profile add\` again`;
    case 'failed':
      return oneLine(`the connection to the node failed: ${state.error.message}`);
    case 'connecting':
      return 'still connecting to the node';
    case 'connected':
      return 'connected';
  }
}
