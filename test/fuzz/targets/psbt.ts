/**
 * PSBTs (`psbt:review`, `drafts:import`): the decoder fuzzer of test/fuzz/psbt-fuzz.ts as a target —
 * its byte-level mutations of the recorded decodepsbt parameters (key-value layout, compact sizes,
 * the transactions inside), and its check: a result or Core's typed -22 "TX decode failed", the
 * JSON text path agreeing, Core v30's rules, write-back and version conversion round trips.
 */
import { LIMITS } from '../../../shared/limits';
import { MUTATIONS, Rng, WEIGHTED, allSeeds, checkInput, mutateBase64 } from '../psbt-fuzz';
import { InvariantError, type FuzzTarget } from '../target';

let seedCache: { b64: string[]; bytes: Uint8Array[] } | null = null;

function seedSet(): { b64: string[]; bytes: Uint8Array[] } {
  if (!seedCache) {
    const bytes = allSeeds();
    seedCache = { bytes, b64: bytes.map((b) => Buffer.from(b).toString('base64')) };
  }
  return seedCache;
}

const target: FuzzTarget = {
  name: 'psbt',
  capBytes: LIMITS.psbt.chars,
  seeds: () => seedSet().b64,
  mutate(input, rng) {
    const r = new Rng(Math.floor(rng() * 0x100000000), Math.floor(rng() * 0x100000000));
    let b: Uint8Array = new Uint8Array(Buffer.from(input, 'base64'));
    let n = 1;
    while (n < 6 && r.chance(0.5)) n++;
    for (let i = 0; i < n; i++) b = MUTATIONS[r.pick(WEIGHTED)]!(b, r, { seeds: seedSet().bytes }) ?? b;
    const text = Buffer.from(b).toString('base64');
    return r.chance(0.03) ? mutateBase64(text, r) : text;
  },
  run(input) {
    const r = checkInput(input, true);
    if (r.failure) throw new InvariantError(r.failure);
  },
  typed: () => false,
};

export default target;
