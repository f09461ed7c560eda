/**
 * Transactions and scriptPubKeys written straight into a decodepsbt reply's text (TxToUniv and
 * ScriptToUniv(include_hex, include_address)), with the common segwit scripts written byte by byte.
 */
import { encodeDestination, extractDestinationFromSolved, writeSegwitAddress } from '../address';
import { inferDescriptorSolved, isValidXOnlyAt, writeDescriptorChecksum } from '../infer';
import type { Network } from '../networks';
import { scriptToAsm, solver } from '../script';
import { hexOf, isCoinBase, type ParsedTx } from '../tx';
import { fastWriteJson, strText } from './json-parts';
import { HEX_DIGITS, TextOut, put, putHex, putUint, writeBtc, writeHexArray } from './text-out';

/** ScriptToUniv(include_hex, include_address) as text, memoized per script within one decode. */
function spkText(script: Uint8Array, network: Network, cache: Map<string, string>): string {
  const hex = hexOf(script);
  let t = cache.get(hex);
  if (t === undefined) {
    // scriptToUniv(script, {includeHex: true, includeAddress: true}) written directly.
    const solved = solver(script);
    const dest = extractDestinationFromSolved(solved);
    const address = dest ? encodeDestination(dest, network) : null;
    t =
      '{"asm":' + strText(scriptToAsm(script)) + ',"desc":' + strText(inferDescriptorSolved(script, network, undefined, solved, address)) +
      ',"hex":"' + hex + (address !== null && solved.type !== 'pubkey' ? '","address":' + strText(address) : '"') +
      ',"type":"' + solved.type + '"}';
    cache.set(hex, t);
  }
  return t;
}

/**
 * ScriptToUniv(include_hex, include_address) of a P2WPKH, P2WSH or P2TR script, written
 * straight into the buffer: asm "0|1 <program>", desc rawtr(<x-only key>) for a valid taproot
 * output key else addr(<address>) (InferDescriptor without a signing provider), with its
 * checksum computed over the bytes just written.
 */
function writeSegwitSpk(w: TextOut, script: Uint8Array, network: Network): void {
  const hrp = network.bech32;
  const n = script.length;
  const v1 = script[0] === 0x51;
  w.room(8 * n + 4 * hrp.length + 256);
  const b = w.buf;
  put(w, v1 ? '{"asm":"1 ' : '{"asm":"0 ');
  const h0 = w.pos;
  putHex(w, script, 2, n);
  const h1 = w.pos;
  put(w, '","desc":"');
  const d0 = w.pos;
  let a0 = -1;
  let a1 = -1;
  if (v1 && isValidXOnlyAt(script, 2)) {
    put(w, 'rawtr(');
    b.copyWithin(w.pos, h0, h1);
    w.pos += h1 - h0;
    put(w, ')');
  } else {
    put(w, 'addr(');
    a0 = w.pos;
    a1 = w.pos = writeSegwitAddress(b, w.pos, hrp, v1 ? 1 : 0, script, 2, n, v1);
    put(w, ')');
  }
  w.pos = writeDescriptorChecksum(b, d0, w.pos);
  put(w, '","hex":"');
  putHex(w, script, 0, 2);
  b.copyWithin(w.pos, h0, h1);
  w.pos += h1 - h0;
  put(w, '","address":"');
  if (a0 < 0) {
    w.pos = writeSegwitAddress(b, w.pos, hrp, v1 ? 1 : 0, script, 2, n, v1);
  } else {
    b.copyWithin(w.pos, a0, a1);
    w.pos += a1 - a0;
  }
  put(w, v1 ? '","type":"witness_v1_taproot"}' : n === 22 ? '","type":"witness_v0_keyhash"}' : '","type":"witness_v0_scripthash"}');
}

/** ScriptToUniv(include_hex, include_address) as text. */
export function writeSpk(w: TextOut, script: Uint8Array, network: Network, cache: Map<string, string>): void {
  const n = script.length;
  const op = script[0];
  if (
    (n === 34 && (op === 0x51 || op === 0x00) && script[1] === 0x20) ||
    (n === 22 && op === 0x00 && script[1] === 0x14)
  ) {
    writeSegwitSpk(w, script, network);
  } else {
    w.text(spkText(script, network, cache));
  }
}

/** TxToUniv(tx) (decodeRawTransactionJson) as text. */
export function writeTx(w: TextOut, tx: ParsedTx, network: Network, cache: Map<string, string>): void {
  const coinbase = isCoinBase(tx);
  w.text('{"txid":"');
  w.text(tx.txid);
  w.text('","hash":"');
  w.text(tx.wtxid);
  w.text('","version":');
  w.num(tx.version);
  w.text(',"size":');
  w.num(tx.size);
  w.text(',"vsize":');
  w.num(tx.vsize);
  w.text(',"weight":');
  w.num(tx.weight);
  w.text(',"locktime":');
  w.num(tx.locktime);
  w.text(',"vin":[');
  for (let i = 0; i < tx.vin.length; i++) {
    const txin = tx.vin[i]!;
    w.room(200);
    put(w, i ? ',{' : '{');
    if (coinbase) {
      w.text('"coinbase":');
      w.qhex(txin.scriptSig);
    } else {
      put(w, '"txid":"');
      const h = txin.prevHash;
      if (h && h.length === 32) {
        const b = w.buf;
        let p = w.pos;
        for (let k = 31; k >= 0; k--) {
          const x = h[k]!;
          b[p] = HEX_DIGITS[x >> 4]!;
          b[p + 1] = HEX_DIGITS[x & 15]!;
          p += 2;
        }
        w.pos = p;
      } else {
        w.text(txin.prevTxid);
      }
      w.room(80);
      put(w, '","vout":');
      putUint(w, txin.vout);
      if (txin.scriptSig.length === 0) {
        put(w, ',"scriptSig":{"asm":"","hex":""}');
      } else {
        w.text(',"scriptSig":{"asm":');
        w.text(fastWriteJson(scriptToAsm(txin.scriptSig, true)));
        w.text(',"hex":');
        w.qhex(txin.scriptSig);
        w.text('}');
      }
    }
    if (txin.witness.length > 0) {
      w.text(',"txinwitness":');
      writeHexArray(w, txin.witness);
    }
    w.room(32);
    put(w, ',"sequence":');
    putUint(w, txin.sequence);
    put(w, '}');
  }
  w.text('],"vout":[');
  for (let i = 0; i < tx.vout.length; i++) {
    const out = tx.vout[i]!;
    w.text(i ? ',{"value":' : '{"value":');
    writeBtc(w, out.value);
    w.text(',"n":');
    w.num(i);
    w.text(',"scriptPubKey":');
    writeSpk(w, out.script, network, cache);
    w.text('}');
  }
  w.text(']}');
}

