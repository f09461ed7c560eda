#!/usr/bin/env node
// `npm start`: builds the app and opens it in Electron. electron 45 no longer fetches its binary when
// it is installed; it does so on the first require('electron'), which electron-vite never makes (it
// reads node_modules/electron/path.txt itself and stops with "Electron uninstall"). So this script
// installs the binary first (electron's own install.js, through @electron/get: a mirror or proxy set
// for it is honoured), then builds (electron-vite build) and starts the binary on this folder, whose
// package.json "main" is the built main process (out/main/index.js).
//
// Where the binary cannot be had (no internet, a closed firewall) it stops within seconds with one
// message that names `npm run web` — never a stack trace.
//
//   node scripts/start.mjs [electron args…]   install if needed, build, open the app
//   node scripts/start.mjs --dev               install if needed, then electron-vite dev (hot reload)
//   node scripts/start.mjs --ensure-only       install if needed and print the binary's path
//
// Environment: ELECTRON_EXEC_PATH — an Electron binary to use instead (nothing is downloaded);
// SPYGLASS_SKIP_BUILD=1 — start what out/ holds; SPYGLASS_ELECTRON_PKG — the electron package folder
// (tests point it at a copy).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(ROOT, 'package.json'));

/** The electron package folder (node_modules/electron). */
export function electronPackageDir(env = process.env) {
  return env.SPYGLASS_ELECTRON_PKG ? resolve(env.SPYGLASS_ELECTRON_PKG) : dirname(require.resolve('electron/package.json'));
}

/** The installed binary of the electron package at `pkgDir` (its own rule: path.txt, dist/version), or null. */
export function installedElectron(pkgDir) {
  try {
    const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
    const rel = readFileSync(join(pkgDir, 'path.txt'), 'utf8').trim();
    const distVersion = readFileSync(join(pkgDir, 'dist', 'version'), 'utf8').trim().replace(/^v/, '');
    const bin = join(pkgDir, 'dist', rel);
    return distVersion === version && existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

/**
 * Why the download failed, from what install.js printed: the deepest `cause:` line that
 * electron-install-causes.cjs added (e.g. "getaddrinfo ENOTFOUND github.com"), else the error's first
 * line ("HTTPError: Response code 404 …"); never the stack trace.
 */
export function downloadFailureReason(stderr) {
  const lines = String(stderr)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('at '));
  const causes = lines.filter((l) => l.startsWith('cause: '));
  const line = causes.length > 0 ? causes[causes.length - 1].slice('cause: '.length) : lines[0];
  return line ? line.replace(/^[A-Za-z]*Error:\s*/, '') : 'the download failed';
}

/**
 * Finds or installs the Electron binary. Returns { path } or { error } (a message for the person,
 * one paragraph, naming `npm run web`).
 */
export function ensureElectron({ env = process.env, log = (m) => process.stderr.write(`${m}\n`) } = {}) {
  if (env.ELECTRON_EXEC_PATH) {
    const p = resolve(env.ELECTRON_EXEC_PATH);
    if (existsSync(p)) return { path: p };
    return { error: cannotOpen(`ELECTRON_EXEC_PATH is set to ${p}, which does not exist`) };
  }
  const pkgDir = electronPackageDir(env);
  const have = installedElectron(pkgDir);
  if (have) return { path: have };
  const version = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  log(`Spyglass: downloading Electron ${version} for ${process.platform}-${process.arch} (first start only, about 100 MB)…`);
  const timeoutMs = Number(env.SPYGLASS_ELECTRON_DOWNLOAD_TIMEOUT_MS ?? 15 * 60_000);
  const causes = join(ROOT, 'scripts', 'electron-install-causes.cjs');
  const r = spawnSync(process.execPath, ['--require', causes, join(pkgDir, 'install.js')], { cwd: pkgDir, env, encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'inherit', 'pipe'] });
  const bin = installedElectron(pkgDir);
  if (r.status === 0 && bin) return { path: bin };
  const reason = r.error?.code === 'ETIMEDOUT' ? `no answer within ${Math.round(timeoutMs / 1000)} s` : downloadFailureReason(r.stderr ?? r.error?.message ?? '');
  return { error: cannotOpen(`the Electron ${version} binary is not installed and could not be downloaded (${reason})`) };
}

function cannotOpen(why) {
  return [
    `Spyglass cannot open its desktop window: ${why}.`,
    '  - To use Spyglass now, run `npm run web`: the same app in your browser, served on this machine only.',
    '  - To get the desktop window, run `npm start` again with internet access (a mirror or proxy: ELECTRON_MIRROR,',
    '    HTTPS_PROXY with ELECTRON_GET_USE_PROXY=1), or point ELECTRON_EXEC_PATH at an Electron 45 binary.',
  ].join('\n');
}

/** The environment the app runs with: never as plain Node. */
export function appEnv(env, binary) {
  const out = { ...env, ELECTRON_EXEC_PATH: binary };
  delete out.ELECTRON_RUN_AS_NODE;
  return out;
}

function run(cmd, args, env) {
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: 'inherit' });
  const forward = (sig) => child.kill(sig);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  child.on('error', (e) => {
    process.stderr.write(`Spyglass: could not start ${cmd}: ${e.message}\n`);
    process.exit(1);
  });
}

function main(argv) {
  const found = ensureElectron();
  if (found.error) {
    process.stderr.write(`${found.error}\n`);
    process.exit(1);
  }
  if (argv[0] === '--ensure-only') {
    process.stdout.write(`${found.path}\n`);
    return;
  }
  const env = appEnv(process.env, found.path);
  const electronVite = join(dirname(require.resolve('electron-vite/package.json')), 'bin', 'electron-vite.js');
  if (argv[0] === '--dev') {
    run(process.execPath, [electronVite, 'dev', ...argv.slice(1)], env);
    return;
  }
  if (env.SPYGLASS_SKIP_BUILD !== '1') {
    const b = spawnSync(process.execPath, [electronVite, 'build'], { cwd: ROOT, env, stdio: 'inherit' });
    if (b.status !== 0) process.exit(b.status ?? 1);
  }
  run(found.path, [ROOT, ...argv], env);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
