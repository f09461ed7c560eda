/**
 * Raw (signed) transactions: the hex pasted or opened in "Import signed" (`drafts:import`; its
 * entry refuses one over its cap before parsing), Core's decoderawtransaction on it (a result or
 * -22 "TX decode failed", for both serializations and each alone), and the deserializer itself,
 * whose refusals are StreamErrors with Core's text. A transaction that reads writes back the same.
 */
import { decodeRawTransaction } from '../../../shared/bitcoin/decode';
import { fromHex } from '../../../shared/bitcoin/hex';
import { REGTEST } from '../../../shared/bitcoin/networks';
import { StreamError, parseTx, serializeTx } from '../../../shared/bitcoin/tx';
import { AppError } from '../../../shared/errors';
import { InputTooLargeError, LIMITS } from '../../../shared/limits';
import { rawTx } from '../../../electron/main/send/sign-service';
import { recordedRawTxs } from '../corpus';
import { MUTATIONS, Rng, compactSize } from '../psbt-fuzz';
import { mutateText } from '../text-mutate';
import { InvariantError, type FuzzTarget } from '../target';

const BYTE_MUTATIONS = ['bitflip', 'byte', 'insert', 'delete', 'truncate'] as const;

let seedCache: string[] | null = null;
function seeds(): string[] {
  if (!seedCache) seedCache = recordedRawTxs();
  return seedCache;
}

/** A byte-level edit, or a compact size written at a random place (counts and lengths of a transaction). */
function mutateBytes(b: Uint8Array, r: Rng): Uint8Array {
  if (r.chance(0.3)) {
    const pos = r.int(b.length + 1);
    const n = r.pick([0, 1, 252, 253, 0xffff, 0x10000, 0x2000000, 0x2000001, 0xffffffff, r.u32()]);
    const cs = compactSize(n, r.pick([undefined, 1, 3, 5, 9] as const));
    const out = new Uint8Array(b.length + cs.length - (r.chance(0.5) ? Math.min(1, b.length - pos) : 0));
    out.set(b.subarray(0, pos));
    out.set(cs, pos);
    out.set(b.subarray(pos + (out.length - b.length - cs.length === 0 ? 0 : 1)), pos + cs.length);
    return out;
  }
  if (r.chance(0.1) && b.length > 4) {
    // the segwit marker and flag after the version, or gone
    return r.chance(0.5) ? Uint8Array.from([...b.subarray(0, 4), 0, r.pick([0, 1, 2, 3]), ...b.subarray(4)]) : Uint8Array.from([...b.subarray(0, 4), ...b.subarray(6)]);
  }
  return MUTATIONS[r.pick(BYTE_MUTATIONS)]!(b, r, { seeds: [] }) ?? b;
}

const target: FuzzTarget = {
  name: 'raw-tx',
  capBytes: LIMITS.rawTx.chars,
  seeds,
  mutate(input, rng) {
    if (rng() < 0.1) return mutateText(input, rng, { dictionary: ['00', 'ff', 'fd', 'fe', '0001', '70736274ff', 'zz', ' ', '\n', '0'], seeds: seeds(), capBytes: LIMITS.rawTx.chars });
    const r = new Rng(Math.floor(rng() * 0x100000000), Math.floor(rng() * 0x100000000));
    let b: Uint8Array = new Uint8Array(Buffer.from(input, 'hex'));
    let n = 1;
    while (n < 5 && r.chance(0.5)) n++;
    for (let i = 0; i < n; i++) b = mutateBytes(b, r);
    return Buffer.from(b).toString('hex');
  },
  run(input) {
    rawTx(input); // the app's entry: the cap, then null, the bytes, or an unsigned one refused
    for (const w of [undefined, true, false]) {
      const d = decodeRawTransaction(input, REGTEST, w);
      if (!d.ok && (d.code !== -22 || d.message !== 'TX decode failed')) throw new InvariantError(`decoderawtransaction answered ${JSON.stringify(d)}`);
    }
    if (!/^([0-9a-fA-F]{2})*$/.test(input)) return;
    const bytes = fromHex(input);
    for (const allowWitness of [true, false]) {
      let tx;
      try {
        tx = parseTx(bytes, { allowWitness });
      } catch (e) {
        if (e instanceof StreamError) continue;
        throw e;
      }
      const witness = allowWitness && tx.vin.some((i) => i.witness.length > 0);
      const back = Buffer.from(serializeTx(tx, { witness })).toString('hex');
      if (back !== input.toLowerCase()) throw new InvariantError(`a transaction read ${allowWitness ? 'with' : 'without'} witness does not write back the same`);
    }
  },
  // Over the cap, or an unsigned transaction where a signed one is expected (#28: said in words).
  typed: (e) => e instanceof InputTooLargeError || (e instanceof AppError && e.code === 'input.invalid' && /unsigned raw transaction/.test(e.message)),
};

export default target;
