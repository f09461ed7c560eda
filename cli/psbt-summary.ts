/**
 * The readable summary `npm run psbt -- decode` prints without --json: inputs, outputs, fee, fee
 * rate, signatures and warnings, from Core's decodepsbt result (version 0: its `tx`; version 2:
 * its inputs' and outputs' own fields, with the transaction's id, size and locktime given).
 */
import type { Network } from '../shared/bitcoin/networks';

type Obj = Record<string, unknown>;

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/** An amount of the result (a RawJson token with 8 decimals, or a number) in satoshis. */
function sats(x: unknown): bigint | undefined {
  let t: string;
  if (typeof x === 'number') t = x.toFixed(8);
  else if (isObj(x) && typeof (x as { text?: unknown }).text === 'string') t = (x as { text: string }).text;
  else return undefined;
  const m = /^(-?)(\d+)\.(\d{8})$/.exec(t);
  if (!m) return undefined;
  const v = BigInt(m[2]!) * 100_000_000n + BigInt(m[3]!);
  return m[1] ? -v : v;
}

function btc(s: bigint): string {
  const neg = s < 0n;
  const a = neg ? -s : s;
  return `${neg ? '-' : ''}${a / 100_000_000n}.${(a % 100_000_000n).toString().padStart(8, '0')} BTC`;
}

function satStr(s: bigint): string {
  return `${s.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')} sat`;
}

function compactSizeLen(n: number): number {
  return n < 253 ? 1 : n <= 0xffff ? 3 : 5;
}

function pushLen(n: number): number {
  return n < 76 ? 1 + n : n < 256 ? 2 + n : 3 + n;
}

/** m of an m-of-n multisig script, from Core's script JSON ({asm, hex, type}). */
function multisig(script: unknown): { m: number; n: number } | undefined {
  if (!isObj(script) || script.type !== 'multisig') return undefined;
  const t = String(script.asm).split(' ');
  const m = Number(t[0]);
  const n = Number(t[t.length - 2]);
  return Number.isInteger(m) && Number.isInteger(n) ? { m, n } : undefined;
}

const scriptLen = (s: unknown): number => (isObj(s) ? String(s.hex ?? '').length / 2 : 0);

/** Size an input will add once signed: scriptSig bytes and witness bytes (upper estimates). */
function inputFinalSize(inp: Obj, spk: Obj | undefined): { scriptSig: number; witness: number } | undefined {
  const spkType = spk ? str(spk.type) : undefined;
  const fss = isObj(inp.final_scriptSig) ? String(inp.final_scriptSig.hex).length / 2 : undefined;
  const fsw = Array.isArray(inp.final_scriptwitness) ? (inp.final_scriptwitness as string[]) : undefined;
  if (fss !== undefined || fsw !== undefined) {
    let w = 0;
    if (fsw) {
      w = compactSizeLen(fsw.length);
      for (const e of fsw) w += compactSizeLen(e.length / 2) + e.length / 2;
    }
    return { scriptSig: fss ?? 0, witness: w };
  }
  const SIG = 73; // push + DER signature + sighash byte, at most
  const PK = 34; // push + compressed key
  const rs = inp.redeem_script;
  const ws = inp.witness_script;
  const wshWitness = (): number | undefined => {
    const ms = multisig(ws);
    if (!ms) return undefined;
    const l = scriptLen(ws);
    return 1 + 1 + ms.m * SIG + compactSizeLen(l) + l; // count, OP_0 dummy, sigs, script
  };
  switch (spkType) {
    case 'pubkeyhash':
      return { scriptSig: SIG + PK, witness: 0 };
    case 'pubkey':
      return { scriptSig: SIG, witness: 0 };
    case 'multisig': {
      const ms = multisig(spk);
      return ms ? { scriptSig: 1 + ms.m * SIG, witness: 0 } : undefined;
    }
    case 'witness_v0_keyhash':
      return { scriptSig: 0, witness: 1 + SIG + PK };
    case 'witness_v0_scripthash': {
      const w = wshWitness();
      return w === undefined ? undefined : { scriptSig: 0, witness: w };
    }
    case 'witness_v1_taproot':
      // Key path: one 64-byte Schnorr signature (65 with an explicit sighash).
      return { scriptSig: 0, witness: 1 + 1 + (inp.sighash !== undefined ? 65 : 64) };
    case 'scripthash': {
      const rsType = isObj(rs) ? rs.type : undefined;
      const rsPush = pushLen(scriptLen(rs));
      if (rsType === 'witness_v0_keyhash') return { scriptSig: rsPush, witness: 1 + SIG + PK };
      if (rsType === 'witness_v0_scripthash') {
        const w = wshWitness();
        return w === undefined ? undefined : { scriptSig: rsPush, witness: w };
      }
      const ms = multisig(rs);
      if (ms) return { scriptSig: 1 + ms.m * SIG + rsPush, witness: 0 };
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Core's GetDustThreshold at the default dust relay fee (3 sat/vB). */
function dustThreshold(spkHex: string): bigint {
  const spk = Buffer.from(spkHex, 'hex');
  if (spk[0] === 0x6a || spk.length > 10_000) return 0n; // unspendable
  let size = 8 + compactSizeLen(spk.length) + spk.length;
  const v = spk[0];
  const isWitness = spk.length >= 4 && spk.length <= 42 && (v === 0 || (v !== undefined && v >= 0x51 && v <= 0x60)) && spk[1] === spk.length - 2;
  size += isWitness ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return BigInt(size * 3);
}

const SEQUENCE_FINAL = 0xffffffff;

/** What a version 2 result does not say about its transaction (Core's GetUnsignedTx). */
export interface UnsignedTxFacts {
  txid: string;
  /** Serialized size without witness data. */
  size: number;
  locktime: number;
}

/**
 * The transaction as version 0's `tx` shows it: from `tx` itself, or (version 2) from the inputs'
 * previous_txid / previous_vout / sequence, the outputs' amount / script and the given facts.
 */
function txOf(r: Obj, facts: UnsignedTxFacts | undefined): Obj {
  if (isObj(r.tx)) return r.tx;
  return {
    ...(facts ? { txid: facts.txid, size: facts.size, locktime: facts.locktime } : {}),
    version: r.tx_version,
    vin: arr(r.inputs).filter(isObj).map((i) => ({ txid: i.previous_txid, vout: i.previous_vout, sequence: i.sequence ?? SEQUENCE_FINAL })),
    vout: arr(r.outputs).filter(isObj).map((o) => ({ value: o.amount, scriptPubKey: o.script })),
  };
}

export function summarize(r: Obj, network: Network, facts?: UnsignedTxFacts): string {
  const lines: string[] = [];
  const warn: string[] = [];
  const tx = txOf(r, facts);
  const vin = arr(tx.vin).filter(isObj);
  const vout = arr(tx.vout).filter(isObj);
  const inputs = arr(r.inputs).filter(isObj);
  const outputs = arr(r.outputs).filter(isObj);
  const locktime = Number(tx.locktime ?? 0);
  const rbf = vin.some((v) => Number(v.sequence) < SEQUENCE_FINAL - 1);

  lines.push(`PSBT version ${String(r.psbt_version)}, network ${network.chain}`);
  lines.push(
    tx.txid !== undefined
      ? `unsigned transaction ${String(tx.txid)}`
      : 'unsigned transaction: none can be built (the inputs require both a time-based and a height-based locktime: no locktime satisfies them all)',
  );
  lines.push(
    `  version ${String(tx.version)}, locktime ${tx.locktime === undefined ? 'unknown' : locktime === 0 ? '0 (none)' : locktime < 500_000_000 ? `${locktime} (block height)` : `${locktime} (${new Date(locktime * 1000).toISOString()})`}, ` +
      `RBF ${rbf ? 'signalled' : 'not signalled'}, ${vin.length} input${vin.length === 1 ? '' : 's'}, ${vout.length} output${vout.length === 1 ? '' : 's'}`,
  );

  // Inputs
  let totalIn = 0n;
  let allAmounts = true;
  let allSized = true;
  let allFinal = inputs.length > 0;
  let baseExtra = 0; // scriptSig bytes added to the unsigned transaction
  const witnessSizes: number[] = []; // per input, 0 = no witness
  lines.push('', `inputs (${vin.length})`);
  for (let i = 0; i < vin.length; i++) {
    const v = vin[i]!;
    const inp = inputs[i] ?? {};
    const n = Number(v.vout);
    lines.push(`  #${i} ${String(v.txid)}:${n}`);
    const wu = isObj(inp.witness_utxo) ? inp.witness_utxo : undefined;
    const nwu = isObj(inp.non_witness_utxo) ? inp.non_witness_utxo : undefined;
    const prevOut = nwu ? arr(nwu.vout).filter(isObj)[n] : undefined;
    const amountW = wu ? sats(wu.amount) : undefined;
    const amountN = prevOut ? sats(prevOut.value) : undefined;
    const amount = amountN ?? amountW;
    const spk = (prevOut && isObj(prevOut.scriptPubKey) ? prevOut.scriptPubKey : undefined) ?? (wu && isObj(wu.scriptPubKey) ? wu.scriptPubKey : undefined);
    const spkType = spk ? str(spk.type) : undefined;
    const address = spk ? str(spk.address) : undefined;
    if (amount !== undefined) totalIn += amount;
    else allAmounts = false;
    lines.push(`     amount    ${amount !== undefined ? btc(amount) : 'unknown'}`);
    lines.push(`     address   ${address ?? (spkType ? `(no address: ${spkType})` : 'unknown')}${address && spkType ? ` (${spkType})` : ''}`);
    const utxo = [wu ? 'witness_utxo' : '', nwu ? 'non_witness_utxo' : ''].filter(Boolean).join(' + ');
    lines.push(`     utxo data ${utxo || 'none'}`);
    if (!wu && !nwu) warn.push(`input #${i}: no UTXO data (neither witness_utxo nor non_witness_utxo): its amount and the fee are unknown`);
    if (amountW !== undefined && amountN !== undefined && amountW !== amountN) {
      warn.push(`input #${i}: witness_utxo amount ${btc(amountW)} differs from the non_witness_utxo output ${btc(amountN)} (segwit fee attack?)`);
    }
    const sighash = str(inp.sighash);
    lines.push(`     sighash   ${sighash ?? 'DEFAULT (not set)'}`);
    if (sighash && sighash !== 'ALL' && sighash !== 'DEFAULT') warn.push(`input #${i}: sighash ${sighash} (not ALL/DEFAULT): the signature does not commit to the whole transaction`);

    const finalized = inp.final_scriptSig !== undefined || inp.final_scriptwitness !== undefined;
    if (!finalized) allFinal = false;
    const partial = isObj(inp.partial_signatures) ? Object.keys(inp.partial_signatures).length : 0;
    const tapKey = inp.taproot_key_path_sig !== undefined ? 1 : 0;
    const tapScript = arr(inp.taproot_script_path_sigs).length;
    const musig = arr(inp.musig2_partial_sigs).length;
    const present = partial + tapKey + tapScript;
    const ms = multisig(inp.witness_script) ?? multisig(inp.redeem_script);
    const single = ['pubkeyhash', 'pubkey', 'witness_v0_keyhash', 'witness_v1_taproot'].includes(spkType ?? '') ||
      (spkType === 'scripthash' && isObj(inp.redeem_script) && inp.redeem_script.type === 'witness_v0_keyhash');
    const required = ms ? `${ms.m} (${ms.m}-of-${ms.n} multisig)` : single ? '1' : 'unknown';
    if (finalized) lines.push(`     signed    finalized (${[inp.final_scriptSig ? 'final_scriptSig' : '', inp.final_scriptwitness ? 'final_scriptwitness' : ''].filter(Boolean).join(' + ')})`);
    else {
      const kinds = [
        partial ? `${partial} partial` : '',
        tapKey ? 'taproot key path' : '',
        tapScript ? `${tapScript} taproot script path` : '',
        musig ? `${musig} musig2 partial` : '',
      ].filter(Boolean);
      lines.push(`     signed    ${present} signature${present === 1 ? '' : 's'} of ${required} required${kinds.length ? ` (${kinds.join(', ')})` : ''}; not finalized`);
    }

    const size = inputFinalSize(inp, spk);
    if (!size) allSized = false;
    else {
      baseExtra += compactSizeLen(size.scriptSig) - 1 + size.scriptSig;
      witnessSizes.push(size.witness);
    }
    if (inp.unknown !== undefined || inp.proprietary !== undefined) {
      warn.push(`input #${i}: carries ${[inp.unknown ? 'unknown' : '', inp.proprietary ? 'proprietary' : ''].filter(Boolean).join(' and ')} fields`);
    }
  }

  lines.push(`  total ${allAmounts ? btc(totalIn) : 'unknown'}`);

  // Outputs
  let totalOut = 0n;
  lines.push('', `outputs (${vout.length})`);
  for (let i = 0; i < vout.length; i++) {
    const v = vout[i]!;
    const value = sats(v.value) ?? 0n;
    totalOut += value;
    const spk = isObj(v.scriptPubKey) ? v.scriptPubKey : {};
    const type = str(spk.type) ?? '?';
    let dest = str(spk.address);
    if (!dest) {
      if (type === 'nulldata') {
        const hex = String(spk.hex ?? '');
        const payload = Buffer.from(hex.replace(/^6a(4c..|4d....|4e........|[0-4][0-9a-f])?/i, ''), 'hex');
        const printable = payload.length > 0 && [...payload].every((c) => c >= 0x20 && c < 0x7f);
        dest = `OP_RETURN ${printable ? JSON.stringify(payload.toString('latin1')) : payload.toString('hex') || '(empty)'}`;
      } else dest = `(no address: ${type})`;
    }
    lines.push(`  #${i} ${dest}  ${btc(value)}`);
    const dust = dustThreshold(String(spk.hex ?? ''));
    if (type !== 'nulldata' && value < dust) warn.push(`output #${i}: ${satStr(value)} is dust (below ${satStr(dust)} for ${type})`);
    const o = outputs[i] ?? {};
    if (o.unknown !== undefined || o.proprietary !== undefined) {
      warn.push(`output #${i}: carries ${[o.unknown ? 'unknown' : '', o.proprietary ? 'proprietary' : ''].filter(Boolean).join(' and ')} fields`);
    }
  }
  lines.push(`  total ${btc(totalOut)}`);

  // Fee
  lines.push('');
  const fee = sats(r.fee);
  if (fee === undefined) {
    lines.push(`fee       unknown${allAmounts ? '' : ' (UTXO data missing for some inputs)'}`);
  } else {
    lines.push(`fee       ${btc(fee)} (${satStr(fee)})`);
    if (fee < 0n) warn.push('the fee is negative: the inputs are worth less than the outputs (the transaction cannot be valid)');
    const base = Number(tx.size ?? 0) + baseExtra;
    if (allSized && base > 0) {
      // With any witness: marker and flag, and an empty stack (one byte) for each input without one.
      const anyWitness = witnessSizes.some((w) => w > 0);
      const weight = base * 4 + (anyWitness ? 2 + witnessSizes.reduce((a, w) => a + (w > 0 ? w : 1), 0) : 0);
      const vsize = Math.ceil(weight / 4);
      const rate = Number(fee) / vsize;
      lines.push(`fee rate  ${allFinal ? '' : '~'}${rate.toFixed(2)} sat/vB (${allFinal ? 'final' : 'estimated final'} size ${vsize} vB)`);
      if (rate > 1000) warn.push(`the fee rate ${rate.toFixed(1)} sat/vB is very high`);
    } else {
      lines.push('fee rate  unknown (cannot estimate the signed size of every input)');
    }
    if (totalOut > 0n && fee * 100n > totalOut * 5n) {
      warn.push(`the fee is ${(Number(fee * 10000n / totalOut) / 100).toFixed(2)}% of the amount sent (more than 5%)`);
    }
  }

  const globalUnknown = isObj(r.unknown) ? Object.keys(r.unknown).length : 0;
  const globalProp = arr(r.proprietary).length;
  if (globalUnknown || globalProp) {
    warn.push(`the global map carries ${[globalUnknown ? `${globalUnknown} unknown` : '', globalProp ? `${globalProp} proprietary` : ''].filter(Boolean).join(' and ')} field(s)`);
  }
  const xpubs = arr(r.global_xpubs).length;
  if (xpubs) lines.push(`global xpubs ${xpubs}`);

  lines.push('', warn.length ? `warnings (${warn.length})` : 'warnings: none');
  for (const w of warn) lines.push(`  - ${w}`);
  return lines.join('\n') + '\n';
}

