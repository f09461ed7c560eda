/**
 * Which signer program runs (#30, electron/main/signer/program.ts) and the file dialog's way to choose it
 * (signer:pick-program), on real files in a temporary folder — no Electron: the resources folder is passed
 * in, and a plain function stands in for Electron's dialog.showOpenDialog (the Electron runtime cannot
 * exist here; index.ts hands the real dialog to the same SignerService). The picked path goes through the
 * real IPC dispatch, its schema and the same checks as a typed path; the test HWI program
 * (test/support/hwi-signer.mjs, standing in for a device) shows the picked file runs with Spyglass's own
 * arguments only.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type SpyglassApp } from '../../electron/main/app';
import { INSTALL_HWI } from '../../electron/main/signer/errors';
import { bundledProgramPath, resolveProgram } from '../../electron/main/signer/program';
import type { SignerListView, SignerPickView, SignerProgramView } from '../../shared/ipc/signer';
import { dispatchOk } from '../support/app';
import { fingerprintOf, HWI_CONFIG_ENV, HWI_SIGNER } from '../support/hwi-devices';

const dir = mkdtempSync(join(tmpdir(), 'spyglass-signer-program-'));
const exe = (file: string): string => {
  writeFileSync(file, '#!/bin/sh\necho "[]"\n');
  chmodSync(file, 0o755);
  return file;
};
const envProgram = exe(join(dir, 'env-hwi'));
const chosen = exe(join(dir, 'chosen-hwi'));
const resources = join(dir, 'resources');
const noBundle = join(dir, 'resources-without-hwi');
const pathDir = join(dir, 'bin');
const emptyPathDir = join(dir, 'empty-bin');
for (const d of [join(resources, 'hwi'), noBundle, pathDir, emptyPathDir]) mkdirSync(d, { recursive: true });
const bundled = exe(bundledProgramPath(resources, 'linux'));
const onPath = exe(join(pathDir, 'hwi'));

describe.skipIf(process.platform === 'win32')('the signer program’s resolution order (real files)', () => {
  const env = { PATH: pathDir, SPYGLASS_SIGNER: envProgram };
  const noEnv = { PATH: pathDir };
  const resolve = (e: NodeJS.ProcessEnv, c: string | null, r: string | null) => resolveProgram({ env: e, chosen: c, resourcesDir: r, platform: 'linux' });

  it('SPYGLASS_SIGNER first, then the chosen file, then the bundled HWI, then hwi on PATH', () => {
    expect(resolve(env, chosen, resources)).toEqual({ program: envProgram, source: 'env', problem: null });
    expect(resolve(noEnv, chosen, resources)).toEqual({ program: chosen, source: 'setting', problem: null });
    expect(resolve(noEnv, null, resources)).toEqual({ program: join(resources, 'hwi', 'hwi'), source: 'bundled', problem: null });
    expect(resolve(noEnv, null, noBundle)).toEqual({ program: onPath, source: 'path', problem: null });
    expect(resolve(noEnv, null, null)).toEqual({ program: onPath, source: 'path', problem: null });
  });

  it('the bundled binary counts only when it is there and may run; the missing-program message is unchanged', () => {
    chmodSync(bundled, 0o644);
    try {
      expect(resolve(noEnv, null, resources)).toEqual({ program: onPath, source: 'path', problem: null });
    } finally {
      chmodSync(bundled, 0o755);
    }
    expect(resolve({ PATH: emptyPathDir }, null, noBundle)).toEqual({ program: null, source: 'path', problem: `The signer program “hwi” is not on your PATH. ${INSTALL_HWI}` });
    expect(bundledProgramPath(resources, 'win32')).toBe(join(resources, 'hwi', 'hwi.exe'));
  });

  it('an override or a choice that cannot run says why (it never falls through to another program)', () => {
    expect(resolve({ PATH: pathDir, SPYGLASS_SIGNER: join(dir, 'nope') }, chosen, resources)).toMatchObject({ program: join(dir, 'nope'), source: 'env', problem: expect.stringMatching(/SPYGLASS_SIGNER names .*nope.*does not exist.*Install HWI/) });
    expect(resolve(noEnv, dir, resources)).toMatchObject({ program: dir, source: 'setting', problem: expect.stringMatching(/not a file/) });
  });
});

describe.skipIf(process.platform === 'win32')('signer:pick-program — the OS file dialog (a stand-in function: Electron cannot run here)', () => {
  let app: SpyglassApp;
  let bare: SpyglassApp;
  /** What the stand-in dialog answers next (null: the person cancelled). */
  let answer: string | null = null;
  let dialogs = 0;
  const config = join(dir, 'hwi-config.json');
  // no SPYGLASS_SIGNER, and a PATH with no hwi: only node's folder (the test HWI program is a node script)
  const env: NodeJS.ProcessEnv = { HOME: dir, PATH: `${emptyPathDir}${delimiter}${dirname(process.execPath)}`, [HWI_CONFIG_ENV]: config };

  beforeAll(() => {
    expect(resolveProgram({ env, chosen: null, resourcesDir: null }).program).toBeNull();
    writeFileSync(config, JSON.stringify({ devices: [{ name: 'A', type: 'trezor', model: 'trezor_t' }] }));
    const base = { info: { version: 'test', platform: process.platform, bridge: false }, secretBackend: null, psbtWorker: 'inline' as const };
    app = createApp({
      ...base,
      dataDir: mkdtempSync(join(dir, 'app-')),
      signer: {
        env,
        resourcesDir: noBundle,
        pickProgram: () => {
          dialogs++;
          return Promise.resolve(answer);
        },
      },
    });
    // as over the browser bridge: no dialog was given
    bare = createApp({ ...base, dataDir: mkdtempSync(join(dir, 'bare-')), signer: { env, resourcesDir: noBundle } });
  });
  afterAll(async () => {
    await app?.close();
    await bare?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the app reports whether it has a native file dialog (the window shows Choose… only then)', async () => {
    expect(await dispatchOk<SignerProgramView>(app, 'signer:program')).toMatchObject({ nativePicker: true });
    expect(await dispatchOk<SignerProgramView>(bare, 'signer:program')).toMatchObject({ nativePicker: false });
  });

  it('no dialog here (the browser bridge): a plain message pointing at the typed path; the typed path still works', async () => {
    const r = await bare.dispatch('signer:pick-program', {});
    expect(!r.ok && r.error).toMatchObject({ code: 'input.invalid', message: expect.stringMatching(/no file dialog in a browser: type the full path/) });
    expect(await dispatchOk<SignerProgramView>(bare, 'signer:set-program', { file: chosen })).toMatchObject({ program: chosen, source: 'setting', problem: null });
  });

  it('the window chooses nothing but to open the dialog: any field in the request is refused before the dialog opens', async () => {
    const before = dialogs;
    for (const payload of [{ file: chosen }, { args: ['--chain', 'main'] }, { defaultPath: '/tmp' }]) {
      const r = await app.dispatch('signer:pick-program', payload);
      expect(!r.ok && r.error.code).toBe('input.invalid');
    }
    expect(dialogs).toBe(before);
  });

  it('a file picked that cannot be the program is refused with the typed path’s words, and nothing is kept', async () => {
    const notExecutable = join(dir, 'plain.txt');
    writeFileSync(notExecutable, 'not a program');
    chmodSync(notExecutable, 0o644);
    const cases: Array<[string, RegExp]> = [
      [notExecutable, /You chose .*plain\.txt.*may not be run \(no execute permission\)\. Install HWI/],
      [dir, /You chose .*but it is not a file/],
      [join(dir, 'gone'), /You chose .*gone.*does not exist/],
      ['relative/hwi', /not a full path to a file/],
    ];
    for (const [file, message] of cases) {
      answer = file;
      const r = await app.dispatch('signer:pick-program', {});
      expect(!r.ok && r.error, file).toMatchObject({ code: 'input.invalid', message: expect.stringMatching(message), detail: { signer: 'not-executable' } });
      // the same words as typing that path
      const typed = await app.dispatch('signer:set-program', { file });
      expect(!typed.ok && typed.error.message).toBe(!r.ok && r.error.message);
    }
    expect(await dispatchOk<SignerProgramView>(app, 'signer:program')).toMatchObject({ source: 'path', program: null });
  });

  it('cancelled: nothing changes', async () => {
    answer = null;
    expect(await dispatchOk<SignerPickView>(app, 'signer:pick-program')).toMatchObject({ picked: false, program: { source: 'path', program: null } });
  });

  it('a program picked is checked, kept, and run with Spyglass’s own arguments (enumerate lists the test device)', async () => {
    answer = HWI_SIGNER;
    const r = await dispatchOk<SignerPickView>(app, 'signer:pick-program');
    expect(r).toEqual({ picked: true, program: { program: HWI_SIGNER, source: 'setting', problem: null, nativePicker: true } });
    expect(await dispatchOk<SignerProgramView>(app, 'signer:program')).toMatchObject({ program: HWI_SIGNER, source: 'setting' });
    const listed = await dispatchOk<SignerListView>(app, 'signer:list');
    expect(listed.devices.map((d) => d.fingerprint)).toEqual([fingerprintOf('A')]);
    // back to the default: no bundled HWI in this resources folder and none on PATH → the install message
    expect(await dispatchOk<SignerProgramView>(app, 'signer:set-program', { file: null })).toMatchObject({ source: 'path', problem: expect.stringMatching(/“hwi” is not on your PATH.*Install HWI/) });
  }, 60_000);
});
