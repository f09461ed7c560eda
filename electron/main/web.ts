// `npm run web`: the whole app in a browser on this machine — the real main-process services behind the
// loopback bridge, serving the built renderer. For development and for machines without an Electron
// binary; the Chromium e2e suite starts the same thing through startWeb().
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp, type AppOptions, type SpyglassApp } from './app';
import { startBridge, type Bridge } from './bridge';
import { startDemoDevnet } from './demo';
import { bitcoinUriFromArgv } from './uri';
import { workerScriptBeside } from './psbt/runner';

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

function defaultDataDir(): string {
  const base = process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return join(base, 'Spyglass-web');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const get = (flag: string): string | undefined => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const here = dirname(fileURLToPath(import.meta.url));
  const web = await startWeb({
    dataDir: resolve(get('--data-dir') ?? defaultDataDir()),
    staticDir: resolve(get('--static') ?? join(here, '../../out/renderer')),
    port: Number(get('--port') ?? 0),
    autoDemo: !args.includes('--no-demo'),
  });
  await web.app.services.start();
  web.app.monitor.start();
  // `npm run web -- bitcoin:…`: the page opens on that payment request, as a clicked link opens the app.
  const uri = bitcoinUriFromArgv(args);
  if (uri) web.app.uris.put(uri);
  process.stdout.write(`Spyglass is running in your browser at:\n  ${web.bridge.pageUrl}\n(loopback only; the token in the URL is this run's key. Ctrl+C stops it.)\n`);
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
