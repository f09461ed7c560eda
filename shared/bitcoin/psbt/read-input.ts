/** One input map (PSBTInput::Unserialize, src/psbt.h), as the chosen Core generation reads it. */
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { checkSignatureEncodingStrict } from '../script';
import { ByteReader, hexOf, hexReversed, type TxIn } from '../tx';
import { INPUT_KEYS as K, IN, V2_INPUT_TYPES, type KeySpec } from './keys';
import {
  KeyLookup,
  NO_MAP,
  checkDuplicate,
  checkKey,
  expectedKeySize,
  fail,
  fromVector,
  keyReader,
  own,
  putMusig,
  readHDKeypath,
  readI64,
  readKey,
  readMusigIdent,
  readMusigParticipants,
  readNonWitnessUtxo,
  readProprietary,
  readTapBip32,
  readUnknown,
  type ReadCtx,
} from './read-common';
import { isFullyValidPubkey } from './pubkey';
import type { PsbtInput } from './types';

const HEX_DIGITS = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const HEX_CODES64: number[] = new Array<number>(64).fill(0);

/** hexOf(b, start, start + 32) as one flat string (no chain of 32 concatenations). */
function hex32(b: Uint8Array, start: number): string {
  const c = HEX_CODES64;
  for (let i = 0; i < 32; i++) {
    const x = b[start + i]!;
    c[2 * i] = HEX_DIGITS[x >> 4]!;
    c[2 * i + 1] = HEX_DIGITS[x & 15]!;
  }
  return String.fromCharCode.apply(null, c);
}

const NO_HASH = new Uint8Array(32);

/** A fresh input: the outpoint from the unsigned transaction (v0) or empty until its fields are read (v2). */
function newInput(txin: TxIn | undefined): PsbtInput {
  return {
    prevHash: txin?.prevHash ?? NO_HASH,
    prevTxid: txin?.prevTxid ?? '',
    vout: txin?.vout ?? 0,
    sequence: txin?.sequence ?? 0xffffffff,
    hasSequence: txin !== undefined,
    partialSigs: NO_MAP,
    hdKeypaths: NO_MAP,
    ripemd160: NO_MAP,
    sha256: NO_MAP,
    hash160: NO_MAP,
    hash256: NO_MAP,
    tapScriptSigs: NO_MAP,
    tapScripts: NO_MAP,
    tapBip32: NO_MAP,
    musigParticipants: NO_MAP,
    musigPubnonces: NO_MAP,
    musigPartialSigs: NO_MAP,
    proprietary: NO_MAP,
    unknown: NO_MAP,
  };
}

/** A BIP370 field's checks: its key size, then that the PSBT is version 2. */
function v2Field(key: Uint8Array, k: KeySpec, version: number): void {
  expectedKeySize(key, k);
  if (version < 2) fail(k.notInV0!);
}

/**
 * Reads one input map. `txin` is the unsigned transaction's input (v0); a v2 input reads its
 * outpoint from its own fields.
 */
export function readInput(c: ReadCtx, s: ByteReader, version: number, txin: TxIn | undefined): PsbtInput {
  const inp = newInput(txin);
  const modern = c.g.modern;
  const lookup = new KeyLookup();
  let foundSep = false;
  let foundPrevTxid = false;
  let foundPrevOut = false;
  while (!s.empty) {
    const key = readKey(s);
    if (key.length === 0) {
      foundSep = true;
      break;
    }
    checkDuplicate(c, lookup, key, 'input');
    // The key type (a compact size: one byte below 0xfd); the reader over the rest of the key is
    // made only for the types that read it.
    let skey: ByteReader | undefined;
    let type = key[0]!;
    if (type >= 0xfd) {
      skey = new ByteReader(key, 0, key.length, 'SpanReader');
      type = skey.compactSize();
    }
    if (!modern && V2_INPUT_TYPES.has(type)) type = -1; // Core v30: unknown keys
    switch (type) {
      case IN.NON_WITNESS_UTXO:
        checkKey(c, lookup, key, K.nonWitnessUtxo);
        readNonWitnessUtxo(c, s, inp);
        break;
      case IN.WITNESS_UTXO: {
        checkKey(c, lookup, key, K.witnessUtxo);
        // fromVector(s, () => ({ value: s.i64(), script: s.varBytes() })) without the closure
        const expected = s.compactSize();
        const before = s.remaining;
        const value = readI64(s);
        const script = s.varBytes();
        if (s.remaining + expected !== before) fail('Size of value was not the stated size');
        inp.witnessUtxo = { value, script };
        break;
      }
      case IN.PARTIAL_SIG: {
        if (key.length !== 66 && key.length !== 34) fail('Size of key was not the expected size for the type partial signature pubkey');
        const pub = key.subarray(1);
        if (!isFullyValidPubkey(pub)) fail('Invalid pubkey');
        const keyId = hexOf(ripemd160(sha256(pub)));
        if (!modern && inp.partialSigs.has(keyId)) fail('Duplicate Key, input partial signature for pubkey already provided');
        const sig = s.varBytes();
        if (sig.length === 0 || !checkSignatureEncodingStrict(sig)) fail('Signature is not a valid encoding');
        inp.partialSigs = own(inp.partialSigs);
        if (!inp.partialSigs.has(keyId)) inp.partialSigs.set(keyId, { pubkey: pub, sig });
        break;
      }
      case IN.SIGHASH:
        checkKey(c, lookup, key, K.sighash);
        inp.sighash = fromVector(s, () => s.i32());
        break;
      case IN.REDEEM_SCRIPT:
        checkKey(c, lookup, key, K.redeemScript);
        inp.redeemScript = s.varBytes();
        break;
      case IN.WITNESS_SCRIPT:
        checkKey(c, lookup, key, K.witnessScript);
        inp.witnessScript = s.varBytes();
        break;
      case IN.BIP32_DERIVATION:
        readHDKeypath(s, key, (inp.hdKeypaths = own(inp.hdKeypaths)));
        break;
      case IN.FINAL_SCRIPTSIG:
        checkKey(c, lookup, key, K.finalScriptSig);
        inp.finalScriptSig = s.varBytes();
        break;
      case IN.FINAL_SCRIPTWITNESS:
        checkKey(c, lookup, key, K.finalScriptWitness);
        inp.finalScriptWitness = fromVector(s, () => {
          const n = s.compactSize();
          const stack: Uint8Array[] = [];
          for (let i = 0; i < n; i++) stack.push(s.varBytes());
          return stack;
        });
        break;
      case IN.RIPEMD160:
      case IN.SHA256:
      case IN.HASH160:
      case IN.HASH256: {
        const name = type === IN.RIPEMD160 ? 'ripemd160' : type === IN.SHA256 ? 'sha256' : type === IN.HASH160 ? 'hash160' : 'hash256';
        const spec = K[name];
        const map = (inp[name] = own(inp[name]));
        if (modern) expectedKeySize(key, spec);
        else if (key.length !== spec.size) fail(spec.v30Size);
        const h = hexOf(key, 1);
        if (map.has(h)) fail(spec.v30Dup); // v30 only: a repeated key failed already in 31.99
        map.set(h, s.varBytes());
        break;
      }
      case IN.PREVIOUS_TXID: {
        v2Field(key, K.previousTxid, version);
        const hash = fromVector(s, () => s.bytes(32));
        inp.prevHash = hash;
        inp.prevTxid = hexReversed(hash);
        foundPrevTxid = true;
        break;
      }
      case IN.OUTPUT_INDEX:
        v2Field(key, K.outputIndex, version);
        inp.vout = fromVector(s, () => s.u32());
        foundPrevOut = true;
        break;
      case IN.SEQUENCE:
        v2Field(key, K.sequence, version);
        inp.sequence = fromVector(s, () => s.u32());
        inp.hasSequence = true;
        break;
      case IN.REQUIRED_TIME_LOCKTIME: {
        v2Field(key, K.timeLocktime, version);
        const t = fromVector(s, () => s.u32());
        inp.timeLocktime = t;
        if (t < 500_000_000) fail('Required time based locktime is invalid (less than 500000000)');
        break;
      }
      case IN.REQUIRED_HEIGHT_LOCKTIME: {
        v2Field(key, K.heightLocktime, version);
        const h = fromVector(s, () => s.u32());
        inp.heightLocktime = h;
        if (h >= 500_000_000) fail('Required height based locktime is invalid (greater than or equal to 500000000)');
        if (h === 0) fail('Required height based locktime is invalid (0)');
        break;
      }
      case IN.TAP_KEY_SIG: {
        checkKey(c, lookup, key, K.tapKeySig);
        const sig = s.varBytes();
        inp.tapKeySig = sig;
        if (sig.length < 64) fail('Input Taproot key path signature is shorter than 64 bytes');
        if (sig.length > 65) fail('Input Taproot key path signature is longer than 65 bytes');
        break;
      }
      case IN.TAP_SCRIPT_SIG: {
        checkKey(c, lookup, key, K.tapScriptSig);
        const sig = s.varBytes();
        if (sig.length < 64) fail('Input Taproot script path signature is shorter than 64 bytes');
        if (sig.length > 65) fail('Input Taproot script path signature is longer than 65 bytes');
        const k = hexOf(key, 1);
        inp.tapScriptSigs = own(inp.tapScriptSigs);
        if (!inp.tapScriptSigs.has(k)) inp.tapScriptSigs.set(k, { pubkey: hexOf(key, 1, 33), leaf: hexOf(key, 33, 65), sig });
        break;
      }
      case IN.TAP_LEAF_SCRIPT: {
        if (!modern && lookup.seen(key)) fail('Duplicate Key, input Taproot leaf script already provided');
        if (key.length < 34) fail(modern ? 'Input Taproot leaf script key is not at least 34 bytes' : 'Taproot leaf script key is not at least 34 bytes');
        if ((key.length - 2) % 32 !== 0) fail("Input Taproot leaf script key's control block size is not valid");
        const v = s.varBytes();
        if (v.length === 0) fail('Input Taproot leaf script must be at least 1 byte');
        const ver = v[v.length - 1]!;
        const script = v.subarray(0, v.length - 1);
        const scriptHex = hexOf(script);
        const k = scriptHex + ':' + ver;
        inp.tapScripts = own(inp.tapScripts);
        let e = inp.tapScripts.get(k);
        if (!e) {
          e = { script, scriptHex, ver, controls: new Map() };
          inp.tapScripts.set(k, e);
        }
        const cb = key.subarray(1);
        const cbHex = hexOf(cb);
        if (!e.controls.has(cbHex)) e.controls.set(cbHex, cb);
        break;
      }
      case IN.TAP_BIP32_DERIVATION: {
        // Core v30: the key size first, then the repeat (its key_lookup holds only keys that
        // passed the size check, so "seen" is "the map has this x-only key").
        if (modern) expectedKeySize(key, K.tapBip32);
        else if (key.length !== 33) fail(K.tapBip32.v30Size);
        const x = hex32(key, 1);
        const m = (inp.tapBip32 = own(inp.tapBip32));
        if (m.has(x)) fail(K.tapBip32.v30Dup);
        m.set(x, readTapBip32(s, 'Input'));
        break;
      }
      case IN.TAP_INTERNAL_KEY:
        checkKey(c, lookup, key, K.tapInternalKey);
        inp.tapInternalKey = fromVector(s, () => s.bytes(32));
        break;
      case IN.TAP_MERKLE_ROOT:
        checkKey(c, lookup, key, K.tapMerkleRoot);
        inp.tapMerkleRoot = fromVector(s, () => s.bytes(32));
        break;
      case IN.MUSIG2_PARTICIPANT_PUBKEYS:
        checkKey(c, lookup, key, K.musigParticipants);
        readMusigParticipants(s, skey ?? keyReader(key), (inp.musigParticipants = own(inp.musigParticipants)), 'Input');
        break;
      case IN.MUSIG2_PUB_NONCE: {
        if (!modern && lookup.seen(key)) fail('Duplicate Key, input musig2 pubnonce already provided');
        if (key.length !== 67 && key.length !== 99) fail('Input musig2 pubnonce key is not expected size of 67 or 99 bytes');
        const id = readMusigIdent(c, skey ?? keyReader(key));
        const nonce = s.varBytes();
        if (nonce.length !== 66) fail('Input musig2 pubnonce value is not 66 bytes');
        putMusig((inp.musigPubnonces = own(inp.musigPubnonces)), id, hexOf(nonce));
        break;
      }
      case IN.MUSIG2_PARTIAL_SIG: {
        if (!modern && lookup.seen(key)) fail('Duplicate Key, input musig2 partial sig already provided');
        if (key.length !== 67 && key.length !== 99) fail('Input musig2 partial sig key is not expected size of 67 or 99 bytes');
        const id = readMusigIdent(c, skey ?? keyReader(key));
        const psig = fromVector(s, () => s.bytes(32));
        putMusig((inp.musigPartialSigs = own(inp.musigPartialSigs)), id, hexOf(psig));
        break;
      }
      case IN.PROPRIETARY:
        readProprietary(s, skey ?? keyReader(key), key, (inp.proprietary = own(inp.proprietary)));
        break;
      default:
        readUnknown(s, key, (inp.unknown = own(inp.unknown)));
    }
  }
  if (!foundSep) fail('Separator is missing at the end of an input map');
  if (version >= 2) {
    if (!foundPrevTxid) fail('Previous TXID is required in PSBTv2');
    if (!foundPrevOut) fail("Previous output's index is required in PSBTv2");
  }
  return inp;
}
