// `npm run web`: the whole app in a browser on this machine — the real main-process services behind the
// loopback bridge, serving the built renderer. For development and for machines without an Electron
// binary; the Chromium e2e suite starts the same thing through startWeb().
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp, type AppOptions, type SpyglassApp } from './app';
import { startBridge, type Bridge } from './bridge';
import { DATA_DIR_FLAG, webDataDir } from './data-dir';
import { startDemoDevnet } from './demo';
import { isBip21 } from '../../shared/bip21';
import { bitcoinUriFromArgv } from './uri';
import { workerScriptBeside } from './psbt/runner';
import { importWorkerScriptBeside } from './watch/import-runner';
import { scanWorkerScriptBeside } from './psbt/scan-runner';

export interface WebOptions extends Partial<Pick<AppOptions, 'secretBackend' | 'log' | 'pollMs'>> {
  dataDir: string;
  staticDir: string;
  port?: number;
  token?: string;
  autoDemo?: boolean;
}

export interface WebApp {
  app: SpyglassApp;
  bridge: Bridge;
  close(): Promise<void>;
}

export async function startWeb(opts: WebOptions): Promise<WebApp> {
  mkdirSync(opts.dataDir, { recursive: true });
  const app = createApp({
    dataDir: opts.dataDir,
    info: { version: process.env.npm_package_version ?? '0.1.0', platform: process.platform, bridge: true },
    startDemo: startDemoDevnet,
    psbtWorker: workerScriptBeside(import.meta.url),
    importWorker: importWorkerScriptBeside(import.meta.url),
    scanWorker: scanWorkerScriptBeside(import.meta.url),
    autoDemo: opts.autoDemo ?? false,
    ...(opts.secretBackend !== undefined ? { secretBackend: opts.secretBackend } : {}),
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
  });
  const bridge = await startBridge({
    dispatch: (c, p) => app.dispatch(c, p),
    subscribe: (event, fn) => app.services.on(event, fn),
    staticDir: opts.staticDir,
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.token !== undefined ? { token: opts.token } : {}),
    log: app.log,
  });
  return {
    app,
    bridge,
    close: async () => {
      await bridge.close();
      await app.close();
    },
  };
}

export const WEB_USAGE = `usage: npm run web [-- options] [bitcoin:URI]
  --data-dir DIR   the data folder (profiles, spyglass.sqlite, logs); also SPYGLASS_DATA_DIR.
                   Default: Spyglass-web in your config folder (~/.config on Linux)
  --demo           open on the built-in demo devnet (otherwise a first run asks: Connect your node / Try the demo)
  --port N         the loopback port to serve on (default: a free one)
  --static DIR     the built renderer to serve (default: out/renderer)
  bitcoin:URI      open this payment request, as a clicked link would`;

export interface WebArgs {
  dataDir: string;
  staticDir: string;
  port: number;
  demo: boolean;
  uri: string | null;
  help: boolean;
}

/**
 * `npm run web`'s command line, strictly: an unknown option or a missing or bad value is an error
 * that says so (with the usage), never ignored. The data folder follows the rule `npm start` uses
 * (./data-dir.ts).
 */
export function parseWebArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, here: string = dirname(fileURLToPath(import.meta.url))): WebArgs {
  const out: WebArgs = { dataDir: '', staticDir: join(here, '../../out/renderer'), port: 0, demo: false, uri: bitcoinUriFromArgv(argv), help: false };
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\n${WEB_USAGE}`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--demo') out.demo = true;
    else if (a === '--no-demo') out.demo = false; // the default; kept for scripts written before it was
    else if (a === '--help' || a === '-h') out.help = true;
    else if (a === DATA_DIR_FLAG) i++; // read by webDataDir below, with its checks
    else if (a.startsWith(`${DATA_DIR_FLAG}=`)) continue;
    else if (a === '--static') out.staticDir = resolve(env['INIT_CWD'] || process.cwd(), value(i++, a)); // from where the command was typed, as --data-dir
    else if (a === '--port') {
      const v = value(i++, a);
      const port = Number(v);
      if (!/^[0-9]+$/.test(v) || port > 65535) throw new Error(`--port needs a port number from 0 to 65535 (0: any free port), not "${v}"`);
      out.port = port;
    } else if (isBip21(a)) continue; // the payment request, read above
    else throw new Error(`unknown ${a.startsWith('-') ? 'option' : 'argument'} "${a}"\n${WEB_USAGE}`);
  }
  out.dataDir = webDataDir(argv, env);
  return out;
}

async function main(): Promise<void> {
  const args = parseWebArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(`${WEB_USAGE}\n`);
    return;
  }
  const web = await startWeb({ dataDir: args.dataDir, staticDir: args.staticDir, port: args.port });
  // --demo: the built-in demo devnet at once (its profile made or reused, and made the active one);
  // otherwise the active profile, and on a first run the page asks: Connect your node / Try the demo.
  if (args.demo) {
    await web.app.services.startDemo().catch((e: unknown) => {
      process.stderr.write(`spyglass web: --demo: ${(e as Error).message}\n`);
    });
  } else await web.app.services.start();
  web.app.monitor.start();
  // `npm run web -- bitcoin:…`: the page opens on that payment request, as a clicked link opens the app.
  if (args.uri) web.app.uris.put(args.uri);
  process.stdout.write(`Spyglass is running in your browser at:\n  ${web.bridge.pageUrl}\n(data folder: ${args.dataDir}; loopback only; the token in the URL is this run's key. Ctrl+C stops it.)\n`);
  const stop = (): void => {
    void web.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e: unknown) => {
    process.stderr.write(`spyglass web: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
