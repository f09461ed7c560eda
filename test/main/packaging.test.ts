// What `npm run dist` (electron-builder) packages, checked without packaging (which needs an Electron
// download): the configuration passes electron-builder's own schema, the fuses are set, bitcoin:
// links are registered, the icons parse, and the native addons the app loads are the ones shipped —
// Node-API binaries, so the same file loads in Node 24 (these tests) and in Electron 45.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, matchesGlob, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(join(ROOT, 'package.json'));
const config = parse(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as Record<string, unknown> & {
  files: string[];
  asarUnpack: string[];
  electronFuses: Record<string, boolean>;
  protocols: Array<{ name: string; schemes: string[] }>;
  npmRebuild: boolean;
};

/** electron-builder's macros in file patterns, as it expands them for this machine. */
const expand = (pattern: string): string => pattern.replaceAll('${platform}', process.platform).replaceAll('${arch}', process.arch);

/** Whether the app's own file `rel` goes in: the last `files` pattern matching it decides. */
function packaged(rel: string): boolean {
  let kept = false;
  for (const p of config.files.map(expand)) {
    const negated = p.startsWith('!');
    if (matchesGlob(rel, negated ? p.slice(1) : p)) kept = !negated;
  }
  return kept;
}

/** Whether electron-builder copies the dependency file `rel` (node_modules/…): its own filter, which reads only the `!` patterns. */
function packagedDependency(rel: string): boolean {
  const { getNodeModuleFileMatcher } = require('app-builder-lib/out/fileMatcher') as {
    getNodeModuleFileMatcher(appDir: string, dest: string, expand: (s: string) => string, opts: object, packager: object): { createFilter(): (file: string, stat: Stats) => boolean };
  };
  const matcher = getNodeModuleFileMatcher(ROOT, '/tmp/app', expand, {}, { config, debugLogger: { isEnabled: false } });
  const file = join(ROOT, rel);
  return matcher.createFilter()(file, statSync(file));
}

/** Dynamic symbols a shared object imports (Linux, with binutils' nm). */
function importedSymbols(file: string): string[] {
  const r = spawnSync('nm', ['-D', '--undefined-only', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`nm failed: ${r.stderr}`);
  return r.stdout.split('\n').map((l) => l.trim().split(/\s+/).pop() ?? '').filter((s) => s !== '');
}

/** The addon files the app loads on this machine: better-sqlite3's own choice, and keytar's build. */
function addons(): Array<{ name: string; file: string }> {
  const bsDir = dirname(require.resolve('better-sqlite3/package.json'));
  const binding = require(join(bsDir, 'lib/binding.js')) as { getPrebuildPath(): string | null };
  const compiled = join(bsDir, 'build/Release/better_sqlite3.node');
  const bs = existsSync(compiled) ? compiled : binding.getPrebuildPath();
  if (bs === null) throw new Error('better-sqlite3 has neither a compiled nor a prebuilt addon for this platform');
  const keytar = join(dirname(require.resolve('keytar/package.json')), 'build/Release/keytar.node');
  return [
    { name: 'better-sqlite3', file: bs },
    { name: 'keytar', file: keytar },
  ];
}

describe('electron-builder configuration', () => {
  it("passes electron-builder's schema", async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as { validateConfiguration(c: unknown, l: unknown): Promise<void> };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    // The validator is strict: a misspelt fuse is refused (so the line above can fail).
    await expect(validateConfiguration({ ...config, electronFuses: { ...config.electronFuses, runAsNod: false } }, new DebugLogger(false))).rejects.toThrow(/configuration/);
  });

  it('flips the hardening fuses', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
    expect(config['asar']).toBe(true);
  });

  it('registers the bitcoin: scheme', () => {
    expect(config.protocols.flatMap((p) => p.schemes)).toContain('bitcoin');
  });

  it('ships the native addons the app loads, unpacked from the asar, and rebuilds nothing', () => {
    expect(config.npmRebuild).toBe(false);
    for (const { name, file } of addons()) {
      const rel = relative(ROOT, file).split('\\').join('/');
      expect(packagedDependency(rel), `${name}: ${rel} is packaged`).toBe(true);
      expect(config.asarUnpack.map(expand).some((p) => matchesGlob(rel, p)), `${name}: ${rel} is unpacked`).toBe(true);
    }
    // Another platform's addon and the C sources stay out; the JavaScript goes in.
    const other = process.platform === 'win32' ? 'linux-x64' : 'win32-x64';
    expect(packagedDependency(`node_modules/better-sqlite3/prebuilds/${other}.node`)).toBe(false);
    expect(packagedDependency('node_modules/better-sqlite3/deps/sqlite3/sqlite3.c')).toBe(false);
    expect(packagedDependency('node_modules/better-sqlite3/lib/index.js')).toBe(true);
    expect(packagedDependency('node_modules/keytar/lib/keytar.js')).toBe(true);
    // libsecp256k1 as WebAssembly: a package beside the bundle (it reads its .wasm next to its module;
    // Electron's fs reads it from the asar).
    expect(packagedDependency('node_modules/tiny-secp256k1/lib/index.js')).toBe(true);
    expect(packagedDependency('node_modules/tiny-secp256k1/lib/secp256k1.wasm')).toBe(true);
    expect(packaged('out/main/index.js')).toBe(true);
    expect(packaged('out/main/index.js.map')).toBe(false);
  });

  it.skipIf(process.platform !== 'linux')('the addons are Node-API only: no V8 or Node C++ symbol, so the same binary loads in Electron (checked on Linux, with nm)', () => {
    for (const { name, file } of addons()) {
      const symbols = importedSymbols(file);
      expect(symbols.some((s) => s.startsWith('napi_')), `${name} imports Node-API`).toBe(true);
      const abiBound = symbols.filter((s) => /^_ZN(2v8|4node)|^uv_|^node_module_register$/.test(s));
      expect(abiBound, `${name} imports no ABI-bound symbol`).toEqual([]);
    }
  });

  it('the addons load here (Node 24), and better-sqlite3 opens a database', async () => {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(':memory:');
    expect((db.prepare('select sqlite_version() as v').get() as { v: string }).v).toMatch(/^3\.\d+\.\d+$/);
    db.close();
    const keytar = require('keytar') as Record<string, unknown>;
    expect(typeof keytar['setPassword']).toBe('function');
    expect(Number(process.versions.napi)).toBeGreaterThanOrEqual(10);
  });
});

/** PNG width and height from its IHDR chunk. */
function pngSize(png: Buffer): [number, number] {
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

describe('icons (resources/)', () => {
  const res = join(ROOT, 'resources');

  it('Linux: a PNG per size, each as large as it says', () => {
    for (const n of [16, 24, 32, 48, 64, 128, 256, 512, 1024]) expect(pngSize(readFileSync(join(res, 'icons', `${n}x${n}.png`)))).toEqual([n, n]);
    expect(pngSize(readFileSync(join(res, 'icon.png')))).toEqual([1024, 1024]);
  });

  it('Windows: icon.ico holds 16–256 px PNG entries', () => {
    const ico = readFileSync(join(res, 'icon.ico'));
    expect(ico.readUInt16LE(0)).toBe(0);
    expect(ico.readUInt16LE(2)).toBe(1);
    const count = ico.readUInt16LE(4);
    const sizes: number[] = [];
    for (let i = 0; i < count; i++) {
      const e = 6 + i * 16;
      const [w] = pngSize(ico.subarray(ico.readUInt32LE(e + 12), ico.readUInt32LE(e + 12) + ico.readUInt32LE(e + 8)));
      expect(ico.readUInt8(e) || 256).toBe(w);
      sizes.push(w);
    }
    expect(sizes).toEqual([16, 24, 32, 48, 64, 128, 256]);
  });

  it('macOS: icon.icns holds 16–1024 px PNG entries, and its length fields add up', () => {
    const icns = readFileSync(join(res, 'icon.icns'));
    expect(icns.subarray(0, 4).toString('latin1')).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const seen = new Map<string, number>();
    for (let at = 8; at < icns.length; ) {
      const type = icns.subarray(at, at + 4).toString('latin1');
      const len = icns.readUInt32BE(at + 4);
      seen.set(type, pngSize(icns.subarray(at + 8, at + len))[0]);
      at += len;
    }
    expect(Object.fromEntries(seen)).toEqual({ icp4: 16, icp5: 32, icp6: 64, ic07: 128, ic08: 256, ic09: 512, ic10: 1024, ic11: 32, ic12: 64, ic13: 256, ic14: 512 });
  });
});
