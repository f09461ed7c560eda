// Which signer program runs (#30), in this order: SPYGLASS_SIGNER (tests, a person's override), the file
// the person chose, the HWI binary bundled with the installed app (resources/hwi/, put there by the
// release workflow after checking it against HWI's signed SHA256SUMS; only when it is there and may run),
// then `hwi` on PATH. Nothing here downloads anything, and nothing but these four sources can name the
// program: no PSBT, file or link reaches this code.
import { join } from 'node:path';
import type { SignerProgramView } from '../../../shared/ipc/signer';
import { INSTALL_HWI } from './errors';
import { checkExecutable, findOnPath } from './run';

export const SIGNER_ENV = 'SPYGLASS_SIGNER';

export interface ProgramSources {
  env: NodeJS.ProcessEnv;
  /** The file the person chose (the persisted setting), or null. */
  chosen: string | null;
  /** The app's resources folder (Electron's process.resourcesPath), or null where there is none (the browser bridge, tests). */
  resourcesDir: string | null;
  platform?: NodeJS.Platform;
}

/** Where the release workflow puts HWI's binary inside the resources folder (electron-builder.yml, extraResources). */
export function bundledProgramPath(resourcesDir: string, platform: NodeJS.Platform = process.platform): string {
  return join(resourcesDir, 'hwi', platform === 'win32' ? 'hwi.exe' : 'hwi');
}

/** Why `file` (named by `what`) cannot be the signer program, with how to install HWI; null when it can. */
export function programProblem(file: string, what: string): string | null {
  if (!/^([A-Za-z]:)?[\\/]/.test(file)) return `${what} “${file}”, which is not a full path to a file. ${INSTALL_HWI}`;
  const why = checkExecutable(file);
  return why ? `${what} “${file}”, but ${why}. ${INSTALL_HWI}` : null;
}

/** The program that runs and where the choice came from (the first source that names one). */
export function resolveProgram(s: ProgramSources): Omit<SignerProgramView, 'nativePicker'> {
  const fromEnv = s.env[SIGNER_ENV]?.trim();
  if (fromEnv) return { program: fromEnv, source: 'env', problem: programProblem(fromEnv, `${SIGNER_ENV} names`) };
  if (s.chosen) return { program: s.chosen, source: 'setting', problem: programProblem(s.chosen, 'The chosen signer program') };
  if (s.resourcesDir) {
    const bundled = bundledProgramPath(s.resourcesDir, s.platform);
    if (checkExecutable(bundled) === null) return { program: bundled, source: 'bundled', problem: null };
  }
  const found = findOnPath('hwi', s.env);
  return { program: found, source: 'path', problem: found ? null : `The signer program “hwi” is not on your PATH. ${INSTALL_HWI}` };
}
