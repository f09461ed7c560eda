// The checks of a BIP 329 record's ref, one per type (see the table in shared/bip329.ts): each gives
// the ref normalized as Spyglass stores it, or a message for the line's error.
import { decodeBase58Check } from '../bitcoin/base58';
import { isHex } from '../bitcoin/hex';
import { MAINNET, TESTNET, type Network } from '../bitcoin/networks';
import { FIELD_P, curveRhs, isCurveX } from '../bitcoin/secp';
import { chainName, checkAddress } from '../watchlist';
import type { LabelType } from './record';

export type RefCheck = { ok: true; ref: string } | { ok: false; message: string };

const TXID_RE = /^[0-9a-fA-F]{64}$/;
const OUTPOINT_RE = /^([0-9a-fA-F]{64}):(0|[1-9][0-9]{0,9})$/;

function checkTxid(ref: string): RefCheck {
  return TXID_RE.test(ref)
    ? { ok: true, ref: ref.toLowerCase() }
    : { ok: false, message: 'A tx ref must be a transaction id: 64 hexadecimal characters.' };
}

function checkOutpoint(type: 'input' | 'output', ref: string): RefCheck {
  const m = OUTPOINT_RE.exec(ref);
  const what = `An ${type} ref must be a transaction id (64 hexadecimal characters), a colon and an ${type} index, e.g. "…8aafd:1".`;
  if (!m) return { ok: false, message: what };
  const index = Number(m[2]);
  if (index > 0xffffffff) return { ok: false, message: `The ${type} index ${m[2]} is out of range (at most 4294967295).` };
  return { ok: true, ref: `${m[1]!.toLowerCase()}:${index}` };
}

function hexToBigint(h: string): bigint {
  return BigInt(`0x${h}`);
}

/** Core CPubKey sizes (02/03 → 33 bytes, 04/06/07 → 65) and x-only keys (32), each on the curve. */
function checkPubkey(ref: string): RefCheck {
  const bad: RefCheck = { ok: false, message: 'A pubkey ref must be a 32-, 33- or 65-byte public key in hexadecimal.' };
  if (!isHex(ref)) return bad;
  const h = ref.toLowerCase();
  const notOnCurve: RefCheck = { ok: false, message: 'This public key is not a point on secp256k1.' };
  if (h.length === 64) return isCurveX(hexToBigint(h)) ? { ok: true, ref: h } : notOnCurve;
  const prefix = h.slice(0, 2);
  if (h.length === 66) {
    if (prefix !== '02' && prefix !== '03') return bad;
    return isCurveX(hexToBigint(h.slice(2))) ? { ok: true, ref: h } : notOnCurve;
  }
  if (h.length === 130) {
    if (prefix !== '04' && prefix !== '06' && prefix !== '07') return bad;
    const x = hexToBigint(h.slice(2, 66));
    const y = hexToBigint(h.slice(66));
    if (x >= FIELD_P || y >= FIELD_P || (y * y) % FIELD_P !== curveRhs(x)) return notOnCurve;
    if ((prefix === '06' && (y & 1n) !== 0n) || (prefix === '07' && (y & 1n) !== 1n)) return notOnCurve;
    return { ok: true, ref: h };
  }
  return bad;
}

/** BIP 32 and SLIP 132 public versions (xpub ypub Ypub zpub Zpub; tpub upub Upub vpub Vpub). */
const XPUB_VERSIONS: { net: Network; name: string; versions: number[] }[] = [
  { net: MAINNET, name: 'mainnet', versions: [0x0488b21e, 0x049d7cb2, 0x0295b43f, 0x04b24746, 0x02aa7ed3] },
  { net: TESTNET, name: 'testnet, signet or regtest', versions: [0x043587cf, 0x044a5262, 0x024289ef, 0x045f1cf6, 0x02575483] },
];

function checkXpub(ref: string, network: Network): RefCheck {
  const data = decodeBase58Check(ref, 78);
  if (!data || data.length !== 78) {
    return { ok: false, message: 'An xpub ref must be a BIP 32 extended public key (Base58Check, 78 bytes).' };
  }
  if (data[45] === 0x00) {
    return { ok: false, message: 'This is an extended PRIVATE key. Spyglass never imports private keys: remove this line and keep the file safe.' };
  }
  const version = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0;
  const family = XPUB_VERSIONS.find((f) => f.versions.includes(version));
  if (!family) return { ok: false, message: `Unknown extended key version 0x${version.toString(16).padStart(8, '0')}.` };
  const mine = network.chain === 'main' ? 'main' : 'test';
  if ((family.net.chain === 'main' ? 'main' : 'test') !== mine) {
    return { ok: false, message: `This is an extended public key for ${family.name}, but the node runs ${chainName(network)}.` };
  }
  const depth = data[4]!;
  const parentAndChild = data.subarray(5, 13);
  if (depth === 0 && parentAndChild.some((b) => b !== 0)) {
    return { ok: false, message: 'Invalid extended public key: depth 0 with a parent fingerprint or child number.' };
  }
  const k = data[45]!;
  let x = 0n;
  for (let i = 46; i < 78; i++) x = (x << 8n) | BigInt(data[i]!);
  if ((k !== 2 && k !== 3) || !isCurveX(x)) return { ok: false, message: 'Invalid extended public key: its key is not a point on secp256k1.' };
  return { ok: true, ref };
}

/** The ref of a `type` record, checked and normalized (addresses and xpubs for `network`). */
export function checkRef(type: LabelType, ref: string, network: Network): RefCheck {
  switch (type) {
    case 'tx':
      return checkTxid(ref);
    case 'input':
    case 'output':
      return checkOutpoint(type, ref);
    case 'pubkey':
      return checkPubkey(ref);
    case 'xpub':
      return checkXpub(ref, network);
    case 'addr': {
      const r = checkAddress(ref, network);
      if (r.ok) return { ok: true, ref: r.address };
      return { ok: false, message: `Invalid address: ${r.message}${r.hint ? ` ${r.hint}` : ''}` };
    }
  }
}
