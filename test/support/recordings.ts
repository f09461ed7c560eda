/**
 * Reading the Core recordings in test/fixtures/miniscript (JSON lines, one file per Core generation)
 * and the PSBTs in them, for the finalize and MuSig2 tests that check our code against Core's answers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBase64Core, parsePsbt, type Psbt } from '../../shared/bitcoin/psbt';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'miniscript');

/** The recording files whose names match `pattern`, each with its lines parsed. */
export function recordings<T>(pattern: RegExp): Array<{ file: string; cases: T[] }> {
  return readdirSync(DIR)
    .filter((f) => pattern.test(f))
    .map((file) => ({
      file,
      cases: readFileSync(join(DIR, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as T),
    }));
}

/** A recorded PSBT (base64, read as Core's DecodeBase64 does), parsed; throws when it does not parse. */
export function readPsbt(b64: string): Psbt {
  const r = parsePsbt(decodeBase64Core(b64)!, {});
  if (!r.ok) throw new Error(r.message);
  return r.psbt;
}
