#!/usr/bin/env node
// The test HWI program (test/support only: no hardware wallet exists on a test machine). This launcher
// runs hwi-signer-main.ts, which speaks HWI 3.x's command line (enumerate, getdescriptors, getxpub,
// displayaddress, signtx). It is bundled once with esbuild into the temp folder and run from there while
// none of its source files changed (each run of a device command starts a process: loading TypeScript
// through a loader on every run would make the tests slow); whatever fails there, tsx runs the source.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { Buffer } from 'node:buffer';
import process from 'node:process';

const entry = fileURLToPath(new URL('./hwi-signer-main.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));
const tag = Buffer.from(root).toString('hex').slice(-24);
const bundle = join(tmpdir(), `spyglass-hwi-signer-${tag}.mjs`);
const meta = `${bundle}.inputs.json`;

function fresh() {
  if (!existsSync(bundle) || !existsSync(meta)) return false;
  const built = statSync(bundle).mtimeMs;
  const inputs = JSON.parse(readFileSync(meta, 'utf8'));
  return inputs.every((f) => existsSync(f) && statSync(f).mtimeMs <= built);
}

async function build() {
  const { build } = await import('esbuild');
  const tmp = `${bundle}.${process.pid}.tmp`;
  const r = await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', target: 'node22', outfile: tmp, metafile: true, logLevel: 'silent', absWorkingDir: root });
  writeFileSync(`${meta}.${process.pid}.tmp`, JSON.stringify(Object.keys(r.metafile.inputs).map((f) => join(root, f))));
  renameSync(`${meta}.${process.pid}.tmp`, meta);
  renameSync(tmp, bundle);
}

let ran = false;
try {
  if (!fresh()) await build();
  ran = true;
  await import(pathToFileURL(bundle).href);
} catch (e) {
  if (ran) throw e;
  const { register } = await import('tsx/esm/api');
  register();
  await import('./hwi-signer-main.ts');
}
