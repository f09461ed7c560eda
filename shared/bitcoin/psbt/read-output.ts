/** One output map (PSBTOutput::Unserialize, src/psbt.h), as the chosen Core generation reads it. */
import { ByteReader, hexOf, type TxOut } from '../tx';
import { OUTPUT_KEYS as K, OUT, V2_OUTPUT_TYPES } from './keys';
import {
  KeyLookup,
  NO_MAP,
  checkDuplicate,
  checkKey,
  expectedKeySize,
  fail,
  fromVector,
  own,
  readHDKeypath,
  readI64,
  readKey,
  readMusigParticipants,
  readProprietary,
  readTapBip32,
  readUnknown,
  type ReadCtx,
} from './read-common';
import type { PsbtOutput } from './types';

const NO_SCRIPT = new Uint8Array(0);

/** TaprootBuilder::Add sequence validity + IsComplete (depths only; hashes do not matter). */
function tapTreeComplete(depths: number[]): boolean {
  const branch: boolean[] = [];
  for (const d of depths) {
    let depth = d;
    if (depth + 1 < branch.length) return false;
    while (branch.length > depth && branch[depth]) {
      branch.pop();
      if (depth === 0) return false;
      depth--;
    }
    while (branch.length <= depth) branch.push(false);
    branch[depth] = true;
  }
  return branch.length === 0 || (branch.length === 1 && branch[0] === true);
}

/**
 * Reads one output map. `txout` is the unsigned transaction's output (v0); a v2 output reads its
 * amount and script from its own fields.
 */
export function readOutput(c: ReadCtx, s: ByteReader, version: number, txout: TxOut | undefined): PsbtOutput {
  const out: PsbtOutput = {
    value: txout?.value ?? 0n,
    script: txout?.script ?? NO_SCRIPT,
    hdKeypaths: NO_MAP,
    tapTree: [],
    tapBip32: NO_MAP,
    musigParticipants: NO_MAP,
    proprietary: NO_MAP,
    unknown: NO_MAP,
  };
  const modern = c.g.modern;
  const lookup = new KeyLookup();
  let foundSep = false;
  let foundAmount = false;
  let foundScript = false;
  while (!s.empty) {
    const key = readKey(s);
    if (key.length === 0) {
      foundSep = true;
      break;
    }
    checkDuplicate(c, lookup, key, 'output');
    const skey = new ByteReader(key, 0, key.length, 'SpanReader');
    let type = skey.compactSize();
    if (!modern && V2_OUTPUT_TYPES.has(type)) type = -1; // Core v30: unknown keys
    switch (type) {
      case OUT.REDEEM_SCRIPT:
        checkKey(c, lookup, key, K.redeemScript);
        out.redeemScript = s.varBytes();
        break;
      case OUT.WITNESS_SCRIPT:
        checkKey(c, lookup, key, K.witnessScript);
        out.witnessScript = s.varBytes();
        break;
      case OUT.BIP32_DERIVATION:
        readHDKeypath(s, key, (out.hdKeypaths = own(out.hdKeypaths)));
        break;
      case OUT.AMOUNT:
        expectedKeySize(key, K.amount);
        if (version < 2) fail(K.amount.notInV0!);
        out.value = fromVector(s, () => readI64(s));
        foundAmount = true;
        break;
      case OUT.SCRIPT:
        expectedKeySize(key, K.script);
        if (version < 2) fail(K.script.notInV0!);
        out.script = s.varBytes();
        foundScript = true;
        break;
      case OUT.TAP_INTERNAL_KEY:
        checkKey(c, lookup, key, K.tapInternalKey);
        out.tapInternalKey = fromVector(s, () => s.bytes(32));
        break;
      case OUT.TAP_TREE: {
        checkKey(c, lookup, key, K.tapTree);
        const treeV = s.varBytes();
        const st = new ByteReader(treeV, 0, treeV.length, 'SpanReader');
        if (st.empty) fail('Output Taproot tree must not be empty');
        const depths: number[] = [];
        while (!st.empty) {
          const depth = st.u8();
          const ver = st.u8();
          const script = st.varBytes();
          if (depth > 128) fail('Output Taproot tree has as leaf greater than Taproot maximum depth');
          if ((ver & ~0xfe) !== 0) fail('Output Taproot tree has a leaf with an invalid leaf version');
          out.tapTree.push({ depth, ver, script });
          depths.push(depth);
        }
        if (!tapTreeComplete(depths)) fail('Output Taproot tree is malformed');
        break;
      }
      case OUT.TAP_BIP32_DERIVATION: {
        checkKey(c, lookup, key, K.tapBip32);
        const x = hexOf(key, 1);
        const v = readTapBip32(s, 'Output');
        out.tapBip32 = own(out.tapBip32);
        if (!out.tapBip32.has(x)) out.tapBip32.set(x, v);
        break;
      }
      case OUT.MUSIG2_PARTICIPANT_PUBKEYS:
        checkKey(c, lookup, key, K.musigParticipants);
        readMusigParticipants(s, skey, (out.musigParticipants = own(out.musigParticipants)), 'Output');
        break;
      case OUT.PROPRIETARY:
        readProprietary(s, skey, key, (out.proprietary = own(out.proprietary)));
        break;
      default:
        readUnknown(s, key, (out.unknown = own(out.unknown)));
    }
  }
  if (!foundSep) fail('Separator is missing at the end of an output map');
  if (version >= 2) {
    if (!foundAmount) fail('Output amount is required in PSBTv2');
    if (!foundScript) fail('Output script is required in PSBTv2');
  }
  return out;
}
