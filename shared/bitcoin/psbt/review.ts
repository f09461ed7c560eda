/**
 * PSBT review for a careful signer (issue 4): what a PSBT spends, where the money goes, what it
 * costs, what is signed, and every reason to hesitate, as data with stable warning codes.
 *
 * Two steps, both pure:
 * - {@link parsePsbtForReview} reads the PSBT into the one model (model.ts) with current Core's
 *   rules, version 0 and version 2 alike, keeping a non_witness_utxo that is not the spent
 *   transaction so that the review can say so (Core refuses such a PSBT).
 * - {@link reviewPsbt} turns the model and what the wallet knows (watched addresses, getaddressinfo
 *   ischange, used addresses, chain tip) into a summary, inputs, outputs and warnings. The v0 and
 *   v2 forms of one PSBT give the same review but for the version they state.
 *
 * Amounts are bigint satoshis; fee rates and percentages are computed in integers and written with
 * two decimals.
 */
import { toHex } from '../hex';
import { OP_RETURN, solver } from '../script';
import { compactSizeLen, hexReversed, serializeTx, sha256d, type Tx, type TxOut } from '../tx';
import { parsePsbt } from './model';
import {
  addressOf,
  dustThreshold,
  finalSignatureCount,
  finalSizes,
  opReturnPayload,
  percentText,
  ratio2,
  sighashName,
  signatureSighashes,
  spendInfo,
  tapLeafCount,
  typeName,
  type SpendInfo,
} from './review-scripts';
import {
  DEFAULT_THRESHOLDS,
  type OutputKind,
  type PsbtReview,
  type PsbtReviewInput,
  type PsbtReviewOutput,
  type PsbtWarning,
  type ReviewContext,
  type ReviewThresholds,
  type WarningSeverity,
} from './review-types';
import { reviewInputPaths } from './review-paths';
import { reviewFieldWarnings, reviewLocktimeWarnings, sats, satsBtc, shortList, type Warn } from './review-warnings';
import type { Psbt } from './types';

/** The model as the review reads it: a PSBT whose transaction has a locktime. */
export type ReviewPsbt = Psbt & { locktime: number };

export type ParseReviewResult = { ok: true; psbt: ReviewPsbt } | { ok: false; message: string };

/** Core's decode message without decodepsbt's framing ("TX decode failed …: iostream error"). */
function bare(message: string): string {
  return message.replace(/^TX decode failed /, '').replace(/: iostream error$/, '');
}

/**
 * Reads a PSBT for review (BIP174 v0, BIP370 v2) with current Core's rules and texts; errors are
 * data (`{ok: false, message}`). Unlike Core it keeps a non_witness_utxo that is not the
 * transaction the input spends (the review warns: non-witness-utxo-txid-mismatch).
 */
export function parsePsbtForReview(bytes: Uint8Array): ParseReviewResult {
  const r = parsePsbt(bytes, { checkUtxoMatch: false });
  if (!r.ok) return { ok: false, message: bare(r.message) };
  if (r.psbt.locktime === null) return { ok: false, message: 'The inputs require both a height and a time locktime: no locktime satisfies them all' };
  return { ok: true, psbt: r.psbt as ReviewPsbt };
}

const SEVERITY_ORDER: Record<WarningSeverity, number> = { danger: 0, warning: 1, info: 2 };

/** A threshold given as a number with at most two useful decimals, in hundredths. */
function hundredths(x: number): bigint {
  return BigInt(Math.round(x * 100));
}

export function reviewPsbt(decoded: ReviewPsbt, ctx: ReviewContext): PsbtReview {
  const thresholds: ReviewThresholds = { ...DEFAULT_THRESHOLDS, ...(ctx.thresholds ?? {}) };
  const warnings: PsbtWarning[] = [];
  const warn: Warn = (code, severity, message, where = {}) => {
    warnings.push({ code, severity, message, inputs: where.inputs ?? [], outputs: where.outputs ?? [] });
  };

  // ——— inputs ———
  const inputs: PsbtReviewInput[] = [];
  const infos: SpendInfo[] = [];
  const missingUtxo: number[] = [];
  const notWatched: number[] = [];
  const unknownAddress: number[] = [];
  let inputTotal: bigint | null = 0n;
  for (let index = 0; index < decoded.inputs.length; index++) {
    const inp = decoded.inputs[index]!;
    const outpoint = `${inp.prevTxid}:${inp.vout}`;
    // PSBT_IN_SIGHASH as the uint32 it is on the wire (the model keeps Core's int).
    const requested = inp.sighash === undefined ? undefined : inp.sighash >>> 0;
    const nwu = inp.nonWitnessUtxo;
    const wu = inp.witnessUtxo;
    let nwuOut: TxOut | undefined;
    if (nwu) {
      if (nwu.txid !== inp.prevTxid) {
        warn(
          'non-witness-utxo-txid-mismatch',
          'danger',
          `Input #${index} spends ${outpoint}, but the previous transaction given for it (non_witness_utxo) is ${nwu.txid}: the PSBT's UTXO data does not describe the coin being spent. Do not sign.`,
          { inputs: [index] },
        );
      } else if (inp.vout >= nwu.vout.length) {
        warn(
          'non-witness-utxo-txid-mismatch',
          'danger',
          `Input #${index} spends output ${inp.vout} of ${inp.prevTxid}, but that transaction (non_witness_utxo) has only ${nwu.vout.length} outputs. Do not sign.`,
          { inputs: [index] },
        );
      } else {
        nwuOut = nwu.vout[inp.vout];
      }
    }
    if (wu && nwuOut) {
      const sameScript = toHex(wu.script) === toHex(nwuOut.script);
      if (wu.value !== nwuOut.value || !sameScript) {
        const parts: string[] = [];
        if (wu.value !== nwuOut.value) {
          parts.push(`witness_utxo says ${satsBtc(wu.value)} but output ${inp.vout} of the previous transaction (non_witness_utxo) holds ${satsBtc(nwuOut.value)}, a difference of ${sats(wu.value > nwuOut.value ? wu.value - nwuOut.value : nwuOut.value - wu.value)}`);
        }
        if (!sameScript) parts.push('the scriptPubKey of witness_utxo differs from the previous transaction\'s output');
        warn(
          'segwit-amount-mismatch',
          'danger',
          `Input #${index} (${outpoint}): ${parts.join('; ')}. A signer trusting witness_utxo would sign a different fee than it thinks (the segwit fee attack). Do not sign.`,
          { inputs: [index] },
        );
      }
    }
    // The trusted UTXO: the previous transaction when it checks out, else witness_utxo.
    const utxo = nwuOut ?? wu;
    const amount = utxo ? utxo.value : null;
    if (amount === null || amount < 0n) inputTotal = null;
    else if (inputTotal !== null) inputTotal += amount;
    if (!wu && !nwu) missingUtxo.push(index);
    const spk = utxo?.script ?? null;
    const address = spk ? addressOf(spk, ctx.network) : null;
    const watched = address !== null && ctx.watched.has(address);
    if (!watched) {
      if (address === null) unknownAddress.push(index);
      else notWatched.push(index);
    }
    const info = spendInfo(inp, spk);
    infos.push(info);
    const finalized = inp.finalScriptSig !== undefined || inp.finalScriptWitness !== undefined;
    let present: number;
    let required: number | null = null;
    let total: number | null = null;
    if (info.multisig) {
      required = info.multisig.m;
      total = info.multisig.keys.length;
      const keys = new Set(info.multisig.keys);
      present = [...inp.partialSigs.values()].filter((p) => keys.has(toHex(p.pubkey))).length;
    } else if (info.single) {
      required = 1;
      total = 1;
      present = inp.partialSigs.size;
    } else if (info.taproot) {
      present = (inp.tapKeySig ? 1 : 0) + inp.tapScriptSigs.size;
      if (tapLeafCount(inp) === 0) {
        required = 1;
        total = 1;
      }
    } else {
      present = inp.partialSigs.size + inp.tapScriptSigs.size + (inp.tapKeySig ? 1 : 0);
    }
    if (finalized) present = Math.max(present, finalSignatureCount(inp));
    const sighashes = signatureSighashes(inp);
    inputs.push({
      index,
      txid: inp.prevTxid,
      vout: inp.vout,
      outpoint,
      sequence: inp.sequence,
      address,
      amount,
      spendType: info.type,
      watched,
      utxo: wu && nwu ? 'both' : wu ? 'witness_utxo' : nwu ? 'non_witness_utxo' : 'none',
      sighash: requested === undefined ? null : sighashName(requested),
      signatureSighashes: [...new Set(sighashes.map(sighashName))],
      signatures: { present, required, total },
      finalized,
      label: null,
    });
    // Sighash: the requested type and the ones already signed with.
    const types = new Set<number>(sighashes);
    if (requested !== undefined) types.add(requested);
    const odd = [...types].filter((t) => t !== 0 && t !== 1);
    if (odd.length > 0) {
      const names = odd.map(sighashName);
      const dangerous = odd.some((t) => (t & 0x1f) !== 1 || (t & ~0x9f) !== 0);
      const why: string[] = [];
      if (odd.some((t) => (t & 0x1f) === 2)) why.push('NONE signs none of the outputs: whoever holds the PSBT can send the money anywhere');
      if (odd.some((t) => (t & 0x1f) === 3)) why.push('SINGLE signs only the output with the same index as the input');
      if (odd.some((t) => (t & 0x80) !== 0)) why.push('ANYONECANPAY lets others add inputs');
      if (odd.some((t) => sighashName(t).startsWith('0x'))) why.push('the type is not a defined sighash');
      warn(
        'sighash-nonstandard',
        dangerous ? 'danger' : 'warning',
        `Input #${index} (${outpoint}) uses sighash ${names.join(', ')} instead of ALL: ${why.join('; ')}.`,
        { inputs: [index] },
      );
    }
  }
  // The spending paths of each input the wallet's descriptors pay: who signed, who is missing.
  if (ctx.descriptors) reviewInputPaths(decoded, ctx.descriptors).forEach((paths, i) => (inputs[i]!.paths = paths));

  // ——— outputs ———
  const outputs: PsbtReviewOutput[] = [];
  let outputTotal = 0n;
  let sent = 0n;
  let change = 0n;
  let burned = 0n;
  decoded.outputs.forEach((out, index) => {
    outputTotal += out.value;
    const solved = solver(out.script);
    const isOpReturn = out.script.length > 0 && out.script[0] === OP_RETURN;
    const address = addressOf(out.script, ctx.network);
    const hint = address !== null ? ctx.changeHints?.get(address) : undefined;
    const isChange = address !== null && (ctx.watched.has(address) || hint?.ischange === true);
    const kind: OutputKind = isOpReturn ? 'op_return' : isChange ? 'change' : 'external';
    const threshold = dustThreshold(out.script);
    const dust = !isOpReturn && out.value < threshold;
    const used = address !== null && (ctx.usedAddresses?.has(address) ?? false);
    if (kind === 'op_return') burned += out.value;
    else if (kind === 'change') change += out.value;
    else sent += out.value;
    outputs.push({
      index,
      address,
      amount: out.value,
      scriptType: isOpReturn ? 'op_return' : typeName(solved.type),
      scriptHex: toHex(out.script),
      kind,
      changeReason: kind === 'change' ? (hint?.ischange === true ? 'ischange' : 'watched') : null,
      used,
      dustThreshold: threshold,
      dust,
      opReturn: isOpReturn ? opReturnPayload(out.script) : null,
      label: null,
    });
    if (dust) {
      warn(
        'dust-output',
        'warning',
        `Output #${index} pays ${sats(out.value)} to ${address ?? 'a ' + typeName(solved.type) + ' script'}, below the dust threshold of ${sats(threshold)} for a ${typeName(solved.type)} output (Bitcoin Core's rule at 3 sat/vB): nodes will not relay the transaction.`,
        { outputs: [index] },
      );
    }
    if (used) {
      warn(
        'output-to-used-address',
        'warning',
        `Output #${index} pays ${satsBtc(out.value)} to ${address}, which has already received payments: reusing an address links your transactions together.`,
        { outputs: [index] },
      );
    }
  });

  // ——— size, fee, rate ———
  const finalizedAll = decoded.inputs.length > 0 && inputs.every((i) => i.finalized);
  let base = 4 + compactSizeLen(decoded.inputs.length) + compactSizeLen(decoded.outputs.length) + 4;
  for (const o of decoded.outputs) base += 8 + compactSizeLen(o.script.length) + o.script.length;
  let witnessBytes = 0;
  let anyWitness = false;
  let sizeKnown = true;
  decoded.inputs.forEach((inp, i) => {
    const sz = finalSizes(inp, infos[i]!);
    if (!sz) {
      sizeKnown = false;
      return;
    }
    base += 32 + 4 + 4 + compactSizeLen(sz.scriptSig) + sz.scriptSig;
    witnessBytes += sz.witness;
    if (sz.witness > 1) anyWitness = true;
  });
  const weight = sizeKnown ? base * 4 + (anyWitness ? 2 + witnessBytes : 0) : null;
  const vsize = weight === null ? null : Math.ceil(weight / 4);
  const fee = inputTotal === null ? null : inputTotal - outputTotal;
  const feeRate = fee !== null && vsize !== null && vsize > 0 ? ratio2(fee, BigInt(vsize)) : null;
  const spent = sent + burned;
  const feePercent = fee !== null && spent > 0n ? percentText(fee * 100n, spent) : null;

  if (missingUtxo.length > 0) {
    warn(
      'fee-unknown',
      'warning',
      `The fee cannot be known: ${missingUtxo.length === 1 ? 'input' : 'inputs'} ${shortList(missingUtxo)} ${missingUtxo.length === 1 ? 'has' : 'have'} no UTXO data (neither witness_utxo nor non_witness_utxo), so the amount being spent is not in the PSBT. Add it (for example with utxoupdatepsbt) before signing.`,
      { inputs: missingUtxo },
    );
  }
  if (fee !== null && fee < 0n) {
    warn('fee-negative', 'danger', `The outputs (${satsBtc(outputTotal)}) add up to more than the inputs (${satsBtc(fee + outputTotal)}): the transaction is invalid as it stands.`);
  }
  if (fee !== null && fee > 0n && vsize !== null && fee * 100n > hundredths(thresholds.feeRateSatVb) * BigInt(vsize)) {
    warn(
      'fee-rate-high',
      'danger',
      `The fee rate is ${feeRate} sat/vB (a fee of ${satsBtc(fee)} for ${vsizeExactText(finalizedAll)} ${vsize} vB), above the limit of ${thresholds.feeRateSatVb} sat/vB.`,
    );
  }
  if (fee !== null && fee > 0n && spent > 0n && fee * 10_000n > hundredths(thresholds.feePercent) * spent) {
    warn(
      'fee-percent-high',
      'warning',
      `The fee of ${satsBtc(fee)} is ${feePercent}% of the ${satsBtc(spent)} being sent, more than ${thresholds.feePercent}%.`,
    );
  }

  // ——— inputs outside the watched set ———
  if (notWatched.length + unknownAddress.length > 0) {
    const parts: string[] = [];
    if (notWatched.length > 0) {
      parts.push(`${notWatched.length === 1 ? 'input' : 'inputs'} ${shortList(notWatched)} ${notWatched.length === 1 ? 'spends a coin' : 'spend coins'} from ${notWatched.length === 1 ? 'an address' : 'addresses'} outside your watched set (${[...new Set(notWatched.map((i) => inputs[i]!.address))].slice(0, 3).join(', ')})`);
    }
    if (unknownAddress.length > 0) {
      parts.push(`${unknownAddress.length === 1 ? 'input' : 'inputs'} ${shortList(unknownAddress)} cannot be matched to your addresses (no UTXO data or a script without an address)`);
    }
    const all = [...notWatched, ...unknownAddress].sort((a, b) => a - b);
    warn('input-not-watched', 'warning', `${all.length} of ${decoded.inputs.length} inputs are not yours as far as Spyglass knows: ${parts.join('; ')}.`, { inputs: all });
  }

  reviewFieldWarnings(decoded, warn);
  const { locktime, rbf } = reviewLocktimeWarnings(decoded, ctx, warn);

  // ——— summary ———
  const signaturesComplete = inputs.every((i) => i.finalized || (i.signatures.required !== null && i.signatures.present >= i.signatures.required));
  const { txid, final: txidFinal } = txidOf(decoded, infos);
  warnings.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  return {
    summary: {
      version: decoded.version,
      txVersion: decoded.txVersion,
      txid,
      txidFinal,
      inputCount: decoded.inputs.length,
      outputCount: decoded.outputs.length,
      inputTotal,
      outputTotal,
      sent,
      change,
      burned,
      fee,
      vsize,
      weight,
      vsizeExact: finalizedAll && sizeKnown,
      feeRate,
      feePercent,
      locktime,
      rbf,
      finalized: finalizedAll,
      signaturesComplete,
    },
    inputs,
    outputs,
    warnings,
  };
}

function vsizeExactText(exact: boolean): string {
  return exact ? 'exactly' : 'an estimated';
}

/** The transaction's txid now, and whether signing can still change it (scriptSigs to be added). */
function txidOf(p: ReviewPsbt, infos: SpendInfo[]): { txid: string; final: boolean } {
  let final = true;
  const tx: Tx = {
    version: p.txVersion,
    locktime: p.locktime,
    vin: p.inputs.map((inp, i) => {
      const finalized = inp.finalScriptSig !== undefined || inp.finalScriptWitness !== undefined;
      if (!finalized && !infos[i]!.nativeWitness) final = false;
      return { prevTxid: inp.prevTxid, prevHash: inp.prevHash, vout: inp.vout >>> 0, scriptSig: inp.finalScriptSig ?? new Uint8Array(0), sequence: inp.sequence, witness: [] };
    }),
    vout: p.outputs.map((o) => ({ value: o.value, script: o.script })),
  };
  return { txid: hexReversed(sha256d(serializeTx(tx, { witness: false }))), final };
}
