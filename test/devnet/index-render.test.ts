import { describe, expect, it } from 'vitest';
import { base64, bech32, bech32m, hex } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import type { ChainBlock, ChainTx, ChainTxIn, ChainTxOut, ChainView, OutputInfo, Spender } from '../../devnet/chain/types';
import {
  ADDRESS_TYPES,
  encodeBase58,
  firstNullData,
  hash160,
  parseScript,
  scriptAddress,
  scriptAsm,
  scriptOpcodes,
} from '../../devnet/index/pybtc';
import { bitsToTarget, blockRecord, regtestSubsidy, targetToDifficulty, versionHex } from '../../devnet/index/block-record';
import { txRecord } from '../../devnet/index/tx-record';
import { decodeAddress, utxoRecords } from '../../devnet/index/utxo-records';
import { merkleProof, verifyMerkleProof } from '../../shared/bitcoin/merkle';
import { PyFloat, divToNumber, pyDumps, pyFloatRepr, pyRound } from '../../devnet/index/pyjson';
import { IndexServer } from '../../devnet/index/server';
import { Chain, REGTEST_GENESIS_HASH } from '../../devnet/chain/chain';
import { p2pkKey } from '../../devnet/chain/indexed';
import { indexSample } from '../fixtures';

// ---------------------------------------------------------------- a small hand-made chain

const u8 = (h: string): Uint8Array => hex.decode(h);
const H = (b: Uint8Array): string => hex.encode(b);
const dsha = (b: Uint8Array): Uint8Array => sha256(sha256(b));
const rev = (b: Uint8Array): Uint8Array => Uint8Array.from(b).reverse();
const cat = (...p: Uint8Array[]): Uint8Array => {
  const o = new Uint8Array(p.reduce((a, x) => a + x.length, 0));
  let i = 0;
  for (const x of p) {
    o.set(x, i);
    i += x.length;
  }
  return o;
};
const le32 = (n: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, true);
  return b;
};
const le64 = (n: bigint): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, true);
  return b;
};
const vi = (n: number): Uint8Array => (n < 0xfd ? Uint8Array.of(n) : Uint8Array.of(0xfd, n & 0xff, n >> 8));
const fill = (len: number, seed: number): Uint8Array => Uint8Array.from({ length: len }, (_, i) => (seed * 31 + i * 7) & 0xff);
const ZERO32 = '0'.repeat(64);
const COIN = 100_000_000n;

interface TxSpec {
  vin: { txid: string; vout: number; scriptSig?: Uint8Array; sequence?: number; witness?: Uint8Array[] }[];
  vout: ChainTxOut[];
  version?: number;
  locktime?: number;
}

function makeTx(spec: TxSpec): ChainTx {
  const vin: ChainTxIn[] = spec.vin.map((v) => ({
    txid: v.txid,
    vout: v.vout,
    scriptSig: v.scriptSig ?? new Uint8Array(0),
    sequence: v.sequence ?? 0xffffffff,
    witness: v.witness ?? [],
  }));
  const version = spec.version ?? 2;
  const locktime = spec.locktime ?? 0;
  const segwit = vin.some((v) => v.witness.length > 0);
  const ins = cat(vi(vin.length), ...vin.map((v) => cat(rev(u8(v.txid)), le32(v.vout), vi(v.scriptSig.length), v.scriptSig, le32(v.sequence))));
  const outs = cat(vi(spec.vout.length), ...spec.vout.map((o) => cat(le64(o.value), vi(o.script.length), o.script)));
  const stripped = cat(le32(version), ins, outs, le32(locktime));
  const wit = cat(...vin.map((v) => cat(vi(v.witness.length), ...v.witness.map((w) => cat(vi(w.length), w)))));
  const raw = segwit ? cat(le32(version), Uint8Array.of(0, 1), ins, outs, wit, le32(locktime)) : stripped;
  const txid = H(rev(dsha(stripped)));
  return {
    txid,
    wtxid: segwit ? H(rev(dsha(raw))) : txid,
    version,
    locktime,
    vin,
    vout: spec.vout,
    raw,
    size: raw.length,
    strippedSize: stripped.length,
    weight: 3 * stripped.length + raw.length,
    segwit,
    coinbase: vin.length === 1 && vin[0]?.txid === ZERO32 && vin[0].vout === 0xffffffff,
  };
}

function merkleRoot(txids: string[]): Uint8Array {
  let level = txids.map((t) => rev(u8(t)));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(dsha(cat(level[i]!, level[i + 1] ?? level[i]!)));
    level = next;
  }
  return level[0]!;
}

const BITS = 0x207fffff;
function makeBlock(height: number, prevHash: string, time: number, txs: ChainTx[], prevTimes: number[]): ChainBlock {
  const root = merkleRoot(txs.map((t) => t.txid));
  const header = cat(le32(0x20000000), rev(u8(prevHash)), root, le32(time), le32(BITS), le32(height + 7));
  const body = txs.reduce((a, t) => a + t.size, 0);
  const strippedBody = txs.reduce((a, t) => a + t.strippedSize, 0);
  const size = 80 + vi(txs.length).length + body;
  const strippedSize = 80 + vi(txs.length).length + strippedBody;
  const times = [...prevTimes.slice(-10), time].sort((a, b) => a - b);
  return {
    height,
    hash: H(rev(dsha(header))),
    header,
    version: 0x20000000,
    prevHash,
    merkleRoot: H(rev(root)),
    time,
    bits: BITS,
    nonce: height + 7,
    txs,
    size,
    strippedSize,
    weight: 3 * strippedSize + size,
    medianTime: times[Math.floor(times.length / 2)]!,
    receivedTime: time + 5,
  };
}

class FakeView implements ChainView {
  readonly mempool: { tx: ChainTx; firstSeen: number }[] = [];
  constructor(readonly blocks: ChainBlock[]) {}
  tipHeight(): number {
    return this.blocks.length - 1;
  }
  blockAt(height: number): ChainBlock | undefined {
    return this.blocks[height];
  }
  blockByHash(hash: string): ChainBlock | undefined {
    return this.blocks.find((b) => b.hash === hash);
  }
  findTx(txid: string): ReturnType<ChainView['findTx']> {
    for (const b of this.blocks) {
      const i = b.txs.findIndex((t) => t.txid === txid);
      if (i >= 0) return { tx: b.txs[i]!, block: b, index: i, firstSeen: b.time - 30 };
    }
    const m = this.mempool.find((e) => e.tx.txid === txid);
    return m ? { tx: m.tx, block: null, index: null, firstSeen: m.firstSeen } : undefined;
  }
  output(txid: string, vout: number): OutputInfo | undefined {
    const f = this.findTx(txid);
    const o = f?.tx.vout[vout];
    if (!f || !o) return undefined;
    return { txid, vout, value: o.value, script: o.script, height: f.block?.height ?? null, txIndex: f.index, coinbase: f.tx.coinbase };
  }
  spenders(txid: string, vout: number): readonly Spender[] {
    const res: Spender[] = [];
    const scan = (tx: ChainTx, confirmed: boolean): void =>
      tx.vin.forEach((v, i) => {
        if (v.txid === txid && v.vout === vout) res.push({ txid: tx.txid, vin: i, confirmed });
      });
    for (const m of this.mempool) scan(m.tx, false);
    for (const b of this.blocks) for (const t of b.txs) scan(t, true);
    return res;
  }
  unspentForScript(script: Uint8Array): readonly OutputInfo[] {
    const res: OutputInfo[] = [];
    this.blocks.forEach((b) =>
      b.txs.forEach((t, ti) =>
        t.vout.forEach((o, vo) => {
          if (H(o.script) === H(script) && this.spenders(t.txid, vo).length === 0) {
            res.push({ txid: t.txid, vout: vo, value: o.value, script: o.script, height: b.height, txIndex: ti, coinbase: t.coinbase });
          }
        }),
      ),
    );
    return res;
  }
  p2pkScript(keyHash: Uint8Array): Uint8Array | undefined {
    for (const b of this.blocks) {
      for (const t of b.txs) {
        for (const o of t.vout) {
          const key = p2pkKey(o.script);
          if (key !== null && H(hash160(key)) === H(keyHash)) return o.script;
        }
      }
    }
    return undefined;
  }
  mempoolByFeeRate(): readonly string[] {
    return this.mempool.map((m) => m.tx.txid);
  }
}

// keys and scripts
const keyA = u8('02' + H(fill(32, 1)));
const keyB = u8('03' + H(fill(32, 2)));
const keyC = u8('02' + H(fill(32, 3)));
const hashA = hash160(keyA);
const hashB = hash160(keyB);
const p2wpkhA = cat(Uint8Array.of(0x00, 0x14), hashA);
const p2pkhB = cat(Uint8Array.of(0x76, 0xa9, 0x14), hashB, Uint8Array.of(0x88, 0xac));
const p2shS = cat(Uint8Array.of(0xa9, 0x14), fill(20, 4), Uint8Array.of(0x87));
const p2wshS = cat(Uint8Array.of(0x00, 0x20), fill(32, 5));
const p2trS = cat(Uint8Array.of(0x51, 0x20), fill(32, 6));
const p2pkC = cat(Uint8Array.of(0x21), keyC, Uint8Array.of(0xac));
const multisig = cat(Uint8Array.of(0x51, 0x21), keyA, Uint8Array.of(0x21), keyB, Uint8Array.of(0x52, 0xae));
const opReturn = u8('6a0b68656c6c6f20776f726c64');
const sig = cat(Uint8Array.of(0x30), fill(69, 7), Uint8Array.of(0x01)); // 71 bytes

const T0 = 1_700_000_000;
const cbScript = (h: number): Uint8Array => cat(Uint8Array.of(0x01, h || 0x00), u8('0b2f7370796761737365732f'));

// block 0: coinbase paying A (P2WPKH) and B (P2PKH)
const cb0 = makeTx({ vin: [{ txid: ZERO32, vout: 0xffffffff, scriptSig: cbScript(0) }], vout: [{ value: 25n * COIN, script: p2wpkhA }, { value: 25n * COIN, script: p2pkhB }] });
// block 1: a segwit spend, a legacy spend with OP_RETURN, and a segwit coinbase with fees
const tx1 = makeTx({
  vin: [{ txid: cb0.txid, vout: 0, witness: [sig, keyA] }],
  vout: [{ value: 10n * COIN, script: p2wshS }, { value: 15n * COIN - 282n, script: p2wpkhA }],
});
const tx2 = makeTx({
  vin: [{ txid: cb0.txid, vout: 1, scriptSig: cat(Uint8Array.of(71), sig, Uint8Array.of(33), keyB), sequence: 0xfffffffd }],
  vout: [
    { value: 0n, script: opReturn },
    { value: 5n * COIN, script: p2shS },
    { value: 5n * COIN, script: p2pkC },
    { value: 5n * COIN, script: multisig },
    { value: 10n * COIN - 1000n, script: p2trS },
  ],
  version: 1,
});
const fees1 = 282n + 1000n;
const cb1 = makeTx({
  vin: [{ txid: ZERO32, vout: 0xffffffff, scriptSig: cbScript(1), witness: [new Uint8Array(32)] }],
  vout: [{ value: 50n * COIN + fees1, script: p2trS }, { value: 0n, script: cat(u8('6a24aa21a9ed'), fill(32, 8)) }],
});
// block 2: coinbase only, two outputs to B (amount order differs from position order)
const cb2 = makeTx({ vin: [{ txid: ZERO32, vout: 0xffffffff, scriptSig: cbScript(2) }], vout: [{ value: 30n * COIN, script: p2pkhB }, { value: 20n * COIN, script: p2pkhB }] });
// mempool: tx3 spends tx1's change (confirmed parent), tx4 spends tx3 (unconfirmed parent)
const tx3 = makeTx({ vin: [{ txid: tx1.txid, vout: 1, witness: [sig, keyA] }], vout: [{ value: 15n * COIN - 282n - 1410n, script: p2pkhB }] });
const tx4 = makeTx({
  vin: [{ txid: tx3.txid, vout: 0, scriptSig: cat(Uint8Array.of(71), sig, Uint8Array.of(33), keyB) }],
  vout: [{ value: 15n * COIN - 282n - 1410n - 5000n, script: p2wpkhA }],
});

const b0 = makeBlock(0, ZERO32, T0, [cb0], []);
const b1 = makeBlock(1, b0.hash, T0 + 600, [cb1, tx1, tx2], [T0]);
const b2 = makeBlock(2, b1.hash, T0 + 300, [cb2], [T0, T0 + 600]); // time goes back: adjusted stays T0+600
const view = new FakeView([b0, b1, b2]);
view.mempool.push({ tx: tx3, firstSeen: T0 + 700 }, { tx: tx4, firstSeen: T0 + 710 });

const addrA = scriptAddress(p2wpkhA)!;
const addrB = scriptAddress(p2pkhB)!;

// ---------------------------------------------------------------- shape helpers

type Obj = Record<string, unknown>;
const dataOf = (file: string): Obj => (indexSample(file) as { data: Obj }).data;
const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** JSON round trip through the server's writer, so PyFloat etc. become what a client sees. */
const wire = (v: unknown): Obj => JSON.parse(pyDumps(v as never)) as Obj;

function expectSameTypes(ours: Obj, sample: Obj, nullable: string[] = []): void {
  for (const k of Object.keys(sample)) {
    const t = typeOf(ours[k]);
    if (nullable.includes(k) && (t === 'null' || typeOf(sample[k]) === 'null')) continue;
    expect([k, t]).toEqual([k, typeOf(sample[k])]);
  }
}

const server = new IndexServer(view);
const get = (path: string, method = 'GET'): { status: number; headers: Record<string, string>; body: string; json: Obj } => {
  const [p, q] = path.split('?');
  const res = server.handle({ method, path: p!, query: new URLSearchParams(q ?? '') });
  let json: Obj = {};
  try {
    json = JSON.parse(res.body) as Obj;
  } catch {
    // plain-text replies
  }
  return { ...res, json };
};

// ---------------------------------------------------------------- pybtc (spec sections 4 and 5)

describe('pybtc script classification and rendering', () => {
  const k33a = '02' + 'aa'.repeat(32);
  const k33b = '03' + 'bb'.repeat(32);
  const w32 = 'cd'.repeat(32);
  const d80 = 'ef'.repeat(80);
  const sig71 = '30' + '44'.repeat(69) + '01';
  const examples: [string, string | null, string, string][] = [
    ['76a9143520dd524f6ca66f63182bb23efff6cc8ee3ee6388ac', 'P2PKH', 'OP_DUP OP_HASH160 [20] OP_EQUALVERIFY OP_CHECKSIG', 'OP_DUP OP_HASH160 OP_PUSHBYTES[20] 3520dd524f6ca66f63182bb23efff6cc8ee3ee63 OP_EQUALVERIFY OP_CHECKSIG'],
    ['a91469f37572ab1b69f304f987b119e2450e0b71bf5c87', 'P2SH', 'OP_HASH160 [20] OP_EQUAL', 'OP_HASH160 OP_PUSHBYTES[20] 69f37572ab1b69f304f987b119e2450e0b71bf5c OP_EQUAL'],
    ['00144160bb1870159a08724557f75c7bb665a3a132e0', 'P2WPKH', 'OP_0 [20]', 'OP_0 OP_PUSHBYTES[20] 4160bb1870159a08724557f75c7bb665a3a132e0'],
    ['0020' + w32, 'P2WSH', 'OP_0 [32]', `OP_0 OP_PUSHBYTES[32] ${w32}`],
    ['5120' + w32, 'V1_P2TR', 'OP_1 [32]', `OP_1 OP_PUSHBYTES[32] ${w32}`],
    ['21' + k33b + 'ac', 'PUBKEY', '[33] OP_CHECKSIG', `OP_PUSHBYTES[33] ${k33b} OP_CHECKSIG`],
    ['5121' + k33a + '21' + k33b + '52ae', 'MULTISIG', 'OP_1 [33] [33] OP_2 OP_CHECKMULTISIG', `OP_1 OP_PUSHBYTES[33] ${k33a} OP_PUSHBYTES[33] ${k33b} OP_2 OP_CHECKMULTISIG`],
    ['6a0b68656c6c6f20776f726c64', 'NULL_DATA', 'OP_RETURN [11]', 'OP_RETURN OP_PUSHBYTES[11] 68656c6c6f20776f726c64'],
    ['6a4c50' + d80, 'NULL_DATA', 'OP_RETURN OP_PUSHDATA1 [80]', `OP_RETURN OP_PUSHDATA1[80] ${d80}`],
    ['6a', 'NULL_DATA', 'OP_RETURN', 'OP_RETURN'],
    ['6a0101020102', 'NULL_DATA_NON_STANDARD', 'OP_RETURN [1] [2]', 'OP_RETURN OP_PUSHBYTES[1] 01 OP_PUSHBYTES[2] 0102'],
    ['160014' + '11'.repeat(20), null, '[22]', `OP_PUSHBYTES[22] 0014${'11'.repeat(20)}`],
    ['47' + sig71 + '21' + k33a, null, '[71] [33]', `OP_PUSHBYTES[71] ${sig71} OP_PUSHBYTES[33] ${k33a}`],
    ['', 'NON_STANDARD', '', ''],
  ];
  it.each(examples)('renders %s', (script, type, opcodes, asm) => {
    const s = u8(script);
    expect(scriptOpcodes(s)).toBe(opcodes);
    expect(scriptAsm(s)).toBe(asm);
    if (type) expect(parseScript(s).type).toBe(type);
  });

  it('gives the nType table and reqSigs/addressHash presence', () => {
    const cases: [string, number, number | null][] = [
      ['', 7, 0],
      ['5120' + w32, 9, null],
      ['0014' + '11'.repeat(20), 5, 1],
      ['0020' + w32, 6, null],
      ['76a914' + '11'.repeat(20) + '88ac', 0, 1],
      ['a914' + '11'.repeat(20) + '87', 1, null],
      ['21' + k33a + 'ac', 2, 1],
      ['41' + '04' + 'aa'.repeat(64) + 'ac', 2, 1],
      ['6a', 3, 0],
      ['6a0101020102', 8, 0],
      ['5121' + k33a + '21' + k33b + '52ae', 4, 1],
    ];
    for (const [script, nType, reqSigs] of cases) {
      const info = parseScript(u8(script));
      expect([script, info.nType]).toEqual([script, nType]);
      if (ADDRESS_TYPES.has(nType)) {
        expect(info.reqSigs).toBe(reqSigs);
        expect(info.addressHash).toBeDefined();
      }
    }
    expect(H(parseScript(u8('21' + k33a + 'ac')).addressHash!)).toBe(H(hash160(u8(k33a))));
  });

  it('reproduces the classification quirks of section 4', () => {
    // second byte not checked for P2TR / P2WPKH / P2WSH
    expect(parseScript(u8('5121' + w32.slice(2) + '00')).type).toBe('V1_P2TR');
    expect(parseScript(u8('00ff' + '11'.repeat(20))).type).toBe('P2WPKH');
    expect(parseScript(u8('0001' + w32)).type).toBe('P2WSH');
    // pay-to-anchor, witness v2, bare scripts
    expect(parseScript(u8('51024e73')).type).toBe('NON_STANDARD');
    expect(parseScript(u8('5220' + w32)).type).toBe('NON_STANDARD');
    expect(parseScript(u8('51')).type).toBe('NON_STANDARD');
    expect(parseScript(u8('a820' + w32 + '87')).type).toBe('NON_STANDARD');
    // OP_RETURN: >80 bytes, several pushes, bad length, 6a00, pushdata1 exact
    expect(parseScript(u8('6a4c51' + 'ab'.repeat(81))).type).toBe('NULL_DATA_NON_STANDARD');
    expect(parseScript(u8('6a02abcd01ef')).type).toBe('NULL_DATA_NON_STANDARD');
    expect(parseScript(u8('6a05abcd')).type).toBe('NULL_DATA_NON_STANDARD');
    expect(parseScript(u8('6a4c')).type).toBe('NULL_DATA_NON_STANDARD');
    expect(parseScript(u8('6a00')).type).toBe('NULL_DATA');
    expect(parseScript(u8('6a4c03abcdef')).type).toBe('NULL_DATA');
    expect(parseScript(u8('6a4d0300abcdef')).type).toBe('NULL_DATA_NON_STANDARD');
    // PUBKEY: only length and last byte
    expect(parseScript(u8('ff'.repeat(34) + 'ac')).type).toBe('PUBKEY');
    // MULTISIG: n >= m, push count = n
    expect(parseScript(u8('5221' + k33a + '21' + k33b + '52ae')).type).toBe('MULTISIG');
    expect(parseScript(u8('5321' + k33a + '21' + k33b + '52ae')).type).toBe('NON_STANDARD');
    expect(parseScript(u8('5121' + k33a + '53ae')).type).toBe('NON_STANDARD');
    expect(parseScript(u8('5121' + k33a + '4c01aa52ae')).type).toBe('NON_STANDARD');
  });

  it('renders opcode names and malformed scripts like pybtc', () => {
    expect(scriptOpcodes(u8('00'))).toBe('OP_0');
    expect(scriptOpcodes(u8('4f50'))).toBe('OP_1NEGATE OP_RESERVED');
    expect(scriptOpcodes(u8('60616566'))).toBe('OP_16 OP_NOP OP_VERIF OP_UNKNOWN');
    expect(scriptOpcodes(u8('b0b1b2b3b9ba'))).toBe('OP_NOP1 OP_CHECKLOCKTIMEVERIFY OP_CHECKSEQUENCEVERIFY OP_NOP4 OP_NOP10 OP_UNKNOWN');
    expect(scriptOpcodes(u8('f9fafbfcfdfeff'))).toBe('OP_UNKNOWN OP_SMALLINTEGER OP_PUBKEYS OP_UNKNOWN OP_PUBKEYHASH OP_PUBKEY OP_INVALIDOPCODE');
    expect(scriptOpcodes(u8('aeaf'))).toBe('OP_CHECKMULTISIG OP_CHECKMULTISIGVERIFY');
    // pushes running past the end
    expect(scriptOpcodes(u8('05aabb'))).toBe('[5]');
    expect(scriptAsm(u8('05aabb'))).toBe('OP_PUSHBYTES[5] aabb');
    expect(scriptAsm(u8('4c05aabb'))).toBe('OP_PUSHDATA1[5] aabb');
    // missing PUSHDATA length
    expect(scriptOpcodes(u8('4c'))).toBe('OP_PUSHDATA1 [SCRIPT_DECODE_FAILED]');
    expect(scriptAsm(u8('4c'))).toBe('[SCRIPT_DECODE_FAILED]');
    expect(scriptOpcodes(u8('4d01'))).toBe('[SCRIPT_DECODE_FAILED]');
    expect(scriptAsm(u8('4d01'))).toBe('[SCRIPT_DECODE_FAILED]');
    expect(scriptOpcodes(u8('6a4e0100'))).toBe('OP_RETURN [SCRIPT_DECODE_FAILED]');
    // PUSHDATA2 / PUSHDATA4 and the extra byte skipped after a PUSHDATA4 payload
    expect(scriptAsm(u8('4d0200abcd51'))).toBe('OP_PUSHDATA2[2] abcd OP_1');
    expect(scriptOpcodes(u8('4d0200abcd51'))).toBe('OP_PUSHDATA2 [2] OP_1');
    expect(scriptAsm(u8('4e01000000aa5152'))).toBe('OP_PUSHDATA4[1] aa OP_2');
    expect(scriptOpcodes(u8('4e01000000aa5152'))).toBe('OP_PUSHDATA4 [1] OP_2');
  });

  it('encodes regtest addresses', () => {
    expect(scriptAddress(u8('0014751e76e8199196d454941c45d1b3a323f1433bd6'))).toBe('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080');
    expect(scriptAddress(u8('76a914' + '00'.repeat(20) + '88ac'))).toBe('mfWxJ45yp2SFn7UciZyNpvDKrzbhyfKrY8');
    expect(scriptAddress(u8('a914' + '00'.repeat(20) + '87'))!.startsWith('2')).toBe(true);
    const p2wsh = scriptAddress(u8('0020' + w32))!;
    expect(p2wsh).toMatch(/^bcrt1q/);
    expect(p2wsh).toHaveLength(64);
    const tr = scriptAddress(u8('5120' + w32))!;
    expect(tr).toMatch(/^bcrt1p/);
    expect(H(Uint8Array.from(bech32m.fromWords(bech32m.decode(tr as `${string}1${string}`).words.slice(1))))).toBe(w32);
    // PUBKEY → P2PKH address of hash160(key)
    expect(scriptAddress(u8('21' + k33a + 'ac'))).toBe(encodeBase58(0x6f, hash160(u8(k33a))));
    expect(scriptAddress(u8('6a'))).toBeUndefined();
    expect(scriptAddress(u8('5121' + k33a + '21' + k33b + '52ae'))).toBeUndefined();
  });

  it('takes data from the first NULL_DATA output only', () => {
    expect(firstNullData([u8('6a0101020102'), u8('6a0b68656c6c6f20776f726c64'), u8('6a')])).toBe('68656c6c6f20776f726c64');
    expect(firstNullData([u8('6a'), u8('6a0b68656c6c6f20776f726c64')])).toBe('');
    expect(firstNullData([u8('6a0101020102'), p2wpkhA])).toBeNull();
  });
});

// ---------------------------------------------------------------- numbers and JSON

describe('Python number and JSON compatibility', () => {
  it('reproduces the BGL sample difficulties exactly', () => {
    const sample = dataOf('bgl_block_37258.json');
    const target = bitsToTarget(sample.bits as number);
    expect(target.toString(16).padStart(64, '0')).toBe(sample.target);
    expect(targetToDifficulty(target)).toBe(1158528.8464602274);
    expect(targetToDifficulty(BigInt('0x' + (sample.hash as string)))).toBe(1616360.0919962383);
    expect(pyFloatRepr(targetToDifficulty(target))).toBe('1158528.8464602274');
    expect(targetToDifficulty(bitsToTarget(0x1d00ffff))).toBe(1);
    expect(pyFloatRepr(targetToDifficulty(bitsToTarget(BITS)))).toBe('4.6565423739069247e-10');
    expect(versionHex(sample.version as number)).toBe(sample.versionHex);
    expect(versionHex(1)).toBe('01');
  });

  it('divides rationals with correct rounding', () => {
    expect(divToNumber(1n, 3n)).toBe(1 / 3);
    expect(divToNumber(2n ** 200n + 1n, 2n ** 147n)).toBe(2 ** 53);
    // halfway cases go to the even mantissa; others to the nearest
    expect(divToNumber(2n ** 54n + 2n, 2n)).toBe(2 ** 53);
    expect(divToNumber(2n ** 54n + 6n, 2n)).toBe(2 ** 53 + 4);
    expect(divToNumber(2n ** 55n + 3n, 4n)).toBe(2 ** 53);
    expect(divToNumber(2n ** 55n + 5n, 4n)).toBe(2 ** 53 + 2);
    for (const n of [2n ** 53n + 1n, 2n ** 53n + 3n, 2n ** 60n + 12345n, 3n ** 40n]) expect(divToNumber(n, 1n)).toBe(Number(n));
  });

  it('rounds and prints floats like Python', () => {
    expect(pyRound(0.125, 2)).toBe(0.12);
    expect(pyRound(2.675, 2)).toBe(2.67);
    expect(pyRound(282 / 141, 2)).toBe(2);
    expect(pyRound(1000 / 3, 2)).toBe(333.33);
    expect(pyFloatRepr(2)).toBe('2.0');
    expect(pyFloatRepr(0.0011)).toBe('0.0011');
    expect(pyFloatRepr(1e-5)).toBe('1e-05');
    expect(pyFloatRepr(1e16)).toBe('1e+16');
    expect(pyFloatRepr(1234567890123456)).toBe('1234567890123456.0');
    expect(pyFloatRepr(1873105475221.611)).toBe('1873105475221.611');
  });

  it('writes JSON like json.dumps', () => {
    expect(pyDumps({ a: [1, 'x'], b: null, c: true, d: new PyFloat(2), e: undefined, f: 5n })).toBe('{"a": [1, "x"], "b": null, "c": true, "d": 2.0, "f": 5}');
    expect(pyDumps('é\u{1F600}"\\\n\u007f/')).toBe('"\\u00e9\\ud83d\\ude00\\"\\\\\\n\\u007f/"');
    expect(pyDumps({ '0': {}, '1': [] })).toBe('{"0": {}, "1": []}');
  });
});

// ---------------------------------------------------------------- block record

describe('block record', () => {
  const sample = dataOf('bgl_block_37258.json');

  it('has the sample key order and value types', () => {
    const rec = wire(blockRecord(view, 1));
    expect(Object.keys(rec)).toEqual(Object.keys(sample));
    expectSameTypes(rec, sample, ['miner', 'nextBlockHash']);
    const tip = wire(blockRecord(view, 2));
    expect(Object.keys(tip)).toEqual(Object.keys(sample));
    expect(tip.nextBlockHash).toBeNull();
  });

  it('computes every field from the chain', () => {
    const rec = blockRecord(view, 1)!;
    const header = base64.decode(rec.header as string);
    expect(header.length).toBe(81);
    expect(H(header.slice(0, 80))).toBe(H(b1.header));
    expect(header[80]).toBe(3);
    expect(H(rev(dsha(header.slice(0, 80))))).toBe(rec.hash);
    expect(rec).toMatchObject({
      height: 1,
      version: 0x20000000,
      versionHex: '20000000',
      previousBlockHash: b0.hash,
      merkleRoot: b1.merkleRoot,
      bits: BITS,
      bitsHex: '207fffff',
      nonce: 8,
      nonceHex: '00000008',
      size: b1.size,
      strippedSize: b1.strippedSize,
      weight: 3 * b1.strippedSize + b1.size,
      target: '7fffff' + '0'.repeat(58),
      miner: null,
      medianBlockTime: T0 + 600,
      blockTime: T0 + 600,
      receivedTimestamp: T0 + 605,
      adjustedTimestamp: T0 + 600,
      nextBlockHash: b2.hash,
      estimatedBlockReward: 5_000_000_000,
      blockReward: 5_000_000_000,
      blockFeeReward: Number(fees1),
      confirmations: 2,
      transactionsCount: 3,
      coinbase: H(cbScript(1)),
    });
    const amount = [cb1, tx1, tx2].reduce((a, t) => a + t.vout.reduce((x, o) => x + o.value, 0n), 0n);
    expect(rec.amount).toBe(Number(amount));
    expect(rec.difficulty).toEqual(new PyFloat(4.6565423739069247e-10));
    expect((rec.blockDifficulty as PyFloat).value).toBe(targetToDifficulty(BigInt('0x' + b1.hash)));
    // block time going back: adjustedTimestamp stays monotonic
    expect(blockRecord(view, 2)).toMatchObject({ blockTime: T0 + 300, adjustedTimestamp: T0 + 600, confirmations: 1, blockFeeReward: 0 });
    expect(blockRecord(view, 3)).toBeUndefined();
  });

  it('uses the regtest halving schedule', () => {
    expect(regtestSubsidy(0)).toBe(5_000_000_000n);
    expect(regtestSubsidy(149)).toBe(5_000_000_000n);
    expect(regtestSubsidy(150)).toBe(2_500_000_000n);
    expect(regtestSubsidy(300)).toBe(1_250_000_000n);
    expect(regtestSubsidy(150 * 64)).toBe(0n);
  });
});

// ---------------------------------------------------------------- transaction record

const TX_ORDER = ['segwit', 'rbf', 'txId', 'hash', 'version', 'size', 'vSize', 'bSize', 'lockTime', 'vIn', 'vOut', 'blockHash', 'confirmations', 'time', 'blockTime', 'blockIndex', 'coinbase', 'fee', 'data', 'amount', 'flag', 'weight', 'inputsAmount', 'outputsAmount', 'blockHeight', 'adjustedTimestamp', 'merkleProof', 'mempoolRank', 'valid', 'feeRate'];

describe('transaction record', () => {
  const sample = dataOf('bgl_transaction_b68b5080.json');
  const sIn = (sample.vIn as Obj)['0'] as Obj;
  const sOut = (sample.vOut as Obj)['0'] as Obj;

  it('confirmed segwit tx: sample key set, server order, value types', () => {
    const rec = wire(txRecord(view, tx1.txid));
    expect(Object.keys(rec).sort()).toEqual(Object.keys(sample).sort());
    expect(Object.keys(rec)).toEqual(TX_ORDER.filter((k) => k in rec));
    expectSameTypes(rec, sample);
    const vin0 = (rec.vIn as Obj)['0'] as Obj;
    expect(Object.keys(vin0)).toEqual(Object.keys(sIn));
    expectSameTypes(vin0, sIn);
    for (const o of Object.values(rec.vOut as Obj)) {
      expect(Object.keys(o as Obj)).toEqual(Object.keys(sOut));
      expectSameTypes(o as Obj, sOut, ['reqSigs']);
    }
  });

  it('confirmed segwit tx: values and arithmetic', () => {
    const rec = txRecord(view, tx1.txid)!;
    expect(rec).toMatchObject({
      segwit: true,
      rbf: false,
      txId: tx1.txid,
      hash: tx1.wtxid,
      version: 2,
      size: tx1.raw.length,
      bSize: tx1.strippedSize,
      weight: 3 * tx1.strippedSize + tx1.raw.length,
      vSize: Math.ceil((3 * tx1.strippedSize + tx1.raw.length) / 4),
      lockTime: 0,
      blockHash: b1.hash,
      blockHeight: 1,
      blockIndex: 1,
      blockTime: T0 + 600,
      adjustedTimestamp: T0 + 600,
      confirmations: 2,
      time: T0 + 570,
      coinbase: false,
      data: null,
      flag: '01',
      inputsAmount: 2_500_000_000,
      outputsAmount: 2_500_000_000 - 282,
      amount: 2_500_000_000 - 282,
      fee: 282,
      valid: true,
    });
    expect(tx1.wtxid).not.toBe(tx1.txid);
    expect(rec.size).toBe(rec.bSize as number + 2 + 1 + 1 + sig.length + 1 + keyA.length);
    expect((rec.feeRate as PyFloat).value).toBe(pyRound(282 / (rec.vSize as number), 2));
    const vin0 = (rec.vIn as Obj)['0'] as Obj;
    expect(vin0).toMatchObject({
      txId: cb0.txid,
      vOut: 0,
      scriptSig: '',
      sequence: 0xffffffff,
      txInWitness: [H(sig), H(keyA)],
      scriptSigOpcodes: '',
      scriptSigAsm: '',
      type: 'P2WPKH',
      amount: 2_500_000_000,
      blockHeight: 0,
      confirmations: 3,
      address: addrA,
      scriptPubKey: H(p2wpkhA),
      scriptPubKeyOpcodes: 'OP_0 [20]',
      scriptPubKeyAsm: `OP_0 OP_PUSHBYTES[20] ${H(hashA)}`,
    });
    const out1 = (rec.vOut as Obj)['1'] as Obj;
    expect(out1).toMatchObject({ value: 1_500_000_000 - 282, nType: 5, type: 'P2WPKH', addressHash: H(hashA), reqSigs: 1, address: addrA });
    expect(out1.spent).toEqual([{ txId: tx3.txid, vIn: 0 }]);
    expect(((rec.vOut as Obj)['0'] as Obj).spent).toEqual([]);
    expect(((rec.vOut as Obj)['0'] as Obj)).toMatchObject({ nType: 6, type: 'P2WSH', reqSigs: null, addressHash: H(p2wshS.slice(2)) });
    expect(pyDumps(rec)).toContain(`"feeRate": ${pyFloatRepr(pyRound(282 / (rec.vSize as number), 2))}}`);
  });

  it('legacy tx: no witness keys, rbf, data, output types', () => {
    const rec = txRecord(view, tx2.txid)!;
    expect(Object.keys(rec)).toEqual(TX_ORDER.filter((k) => k !== 'flag' && k !== 'mempoolRank'));
    expect(rec).toMatchObject({ segwit: false, rbf: true, hash: tx2.txid, version: 1, size: tx2.raw.length, bSize: tx2.raw.length, weight: 4 * tx2.raw.length, data: '68656c6c6f20776f726c64', fee: 1000, blockIndex: 2 });
    const vin0 = (rec.vIn as Obj)['0'] as Obj;
    expect('txInWitness' in vin0).toBe(false);
    expect(vin0).toMatchObject({ type: 'P2PKH', address: addrB, scriptSigOpcodes: '[71] [33]', scriptSigAsm: `OP_PUSHBYTES[71] ${H(sig)} OP_PUSHBYTES[33] ${H(keyB)}` });
    const outs = rec.vOut as Record<string, Obj>;
    expect(Object.keys(outs)).toEqual(['0', '1', '2', '3', '4']);
    expect(Object.keys(outs['0']!)).toEqual(['value', 'scriptPubKey', 'nType', 'type', 'scriptPubKeyOpcodes', 'scriptPubKeyAsm', 'spent']);
    expect(outs['0']).toMatchObject({ value: 0, nType: 3, type: 'NULL_DATA', scriptPubKeyOpcodes: 'OP_RETURN [11]' });
    expect(outs['1']).toMatchObject({ nType: 1, type: 'P2SH', reqSigs: null, address: scriptAddress(p2shS) });
    expect(outs['2']).toMatchObject({ nType: 2, type: 'PUBKEY', reqSigs: 1, addressHash: H(hash160(keyC)), address: encodeBase58(0x6f, hash160(keyC)) });
    expect(outs['3']).toMatchObject({ nType: 4, type: 'MULTISIG' });
    expect('address' in outs['3']!).toBe(false);
    expect('reqSigs' in outs['3']!).toBe(false);
    expect(outs['4']).toMatchObject({ nType: 9, type: 'V1_P2TR', reqSigs: null, address: scriptAddress(p2trS) });
    expect(wire(rec).feeRate).toBe(pyRound(1000 / Math.ceil(tx2.weight / 4), 2));
  });

  it('coinbase tx: short input form, zero fee, spent list', () => {
    const rec = txRecord(view, cb1.txid)!;
    const vin0 = (rec.vIn as Obj)['0'] as Obj;
    expect(Object.keys(vin0)).toEqual(['txId', 'vOut', 'scriptSig', 'sequence', 'txInWitness']);
    expect(vin0).toMatchObject({ txId: ZERO32, vOut: 4294967295, scriptSig: H(cbScript(1)), txInWitness: [ZERO32] });
    expect(rec).toMatchObject({ coinbase: true, fee: 0, inputsAmount: 0, blockIndex: 0, segwit: true, flag: '01' });
    expect(rec.data).toBe('aa21a9ed' + H(fill(32, 8)));
    expect(wire(rec).feeRate).toBe(0);
    const legacyCb = txRecord(view, cb0.txid)!;
    expect(Object.keys((legacyCb.vIn as Obj)['0'] as Obj)).toEqual(['txId', 'vOut', 'scriptSig', 'sequence']);
    expect(((legacyCb.vOut as Obj)['0'] as Obj).spent).toEqual([{ txId: tx1.txid, vIn: 0 }]);
    expect(((legacyCb.vOut as Obj)['1'] as Obj).spent).toEqual([{ txId: tx2.txid, vIn: 0 }]);
  });

  it('mempool txs: null block fields, rank, unconfirmed parents', () => {
    const rec = txRecord(view, tx3.txid)!;
    expect(Object.keys(rec)).toEqual(TX_ORDER.filter((k) => k !== 'merkleProof'));
    expect(rec).toMatchObject({ blockHash: null, blockHeight: null, blockIndex: null, blockTime: null, adjustedTimestamp: null, confirmations: null, time: T0 + 700, mempoolRank: 1 });
    expect(((rec.vIn as Obj)['0'] as Obj)).toMatchObject({ blockHeight: 1, confirmations: 2 });
    const rec4 = txRecord(view, tx4.txid)!;
    expect(rec4.mempoolRank).toBe(2);
    expect(((rec4.vIn as Obj)['0'] as Obj)).toMatchObject({ blockHeight: null, confirmations: null, type: 'P2PKH' });
    expect(((rec.vOut as Obj)['0'] as Obj).spent).toEqual([{ txId: tx4.txid, vIn: 0 }]);
    const w = wire(rec);
    const { merkleProof: _m, ...confirmedOnly } = sample;
    expectSameTypes(w, confirmedOnly, ['blockHash', 'blockHeight', 'blockIndex', 'blockTime', 'adjustedTimestamp', 'confirmations', 'merkleProof']);
    expect(txRecord(view, 'ab'.repeat(32))).toBeUndefined();
  });

  it('merkle proofs verify against the block merkle root', () => {
    for (const b of [b0, b1, b2]) {
      b.txs.forEach((t, i) => {
        const proof = txRecord(view, t.txid)!.merkleProof as string;
        expect(base64.decode(proof).length).toBe(32 * Math.ceil(Math.log2(b.txs.length)));
        expect(verifyMerkleProof(t.txid, i, proof, b.merkleRoot)).toBe(true);
      });
    }
    expect(txRecord(view, cb2.txid)!.merkleProof).toBe('');
    // larger trees, odd levels
    const ids = Array.from({ length: 11 }, (_, i) => H(sha256(Uint8Array.of(i))));
    const root = H(rev(merkleRoot(ids)));
    ids.forEach((id, i) => expect(verifyMerkleProof(id, i, merkleProof(ids, i), root)).toBe(true));
    expect(verifyMerkleProof(ids[3]!, 3, merkleProof(ids, 4), root)).toBe(false);
    // 2-tx block: the proof of tx 1 is the coinbase txid in internal order (BGL sample shape)
    expect(H(base64.decode(merkleProof([cb1.txid, tx1.txid], 1)))).toBe(H(rev(u8(cb1.txid))));
  });
});

// ---------------------------------------------------------------- address utxo

describe('address utxo', () => {
  const q = (s = ''): URLSearchParams => new URLSearchParams(s);
  const sample = indexSample('bgl_address_utxo_bgl1qt3jeum.json') as { data: Obj[] };

  it('has the sample entry shape (+ type for P2PKH)', () => {
    const p2tr = utxoRecords(view, scriptAddress(p2trS)!, q());
    expect(p2tr.length).toBe(2);
    for (const e of p2tr) {
      expect(Object.keys(e)).toEqual(Object.keys(sample.data[0]!));
      expectSameTypes(wire(e), sample.data[0]!);
    }
    expect(p2tr[0]).toEqual({ txId: cb1.txid, vOut: 0, block: 1, txIndex: 0, amount: Number(50n * COIN + fees1) });
    expect(p2tr[1]).toEqual({ txId: tx2.txid, vOut: 4, block: 1, txIndex: 2, amount: 999_999_000 });
    const b = utxoRecords(view, addrB, q());
    expect(b).toEqual([
      { txId: cb2.txid, vOut: 0, block: 2, txIndex: 0, amount: 3_000_000_000, type: 'P2PKH' },
      { txId: cb2.txid, vOut: 1, block: 2, txIndex: 0, amount: 2_000_000_000, type: 'P2PKH' },
    ]);
    expect(utxoRecords(view, addrB, q('type=P2PKH'))[0]).not.toHaveProperty('type');
    expect(utxoRecords(view, addrB, q('type=PUBKEY'))).toEqual([]);
  });

  it('a P2PKH address also gets the P2PK outputs of its key unless it asks type=P2PKH (the server\'s p2pk map)', () => {
    // tx2 pays keyC directly (P2PK); nothing pays C's P2PKH script.
    const addrC = encodeBase58(0x6f, hash160(keyC));
    const p2pkEntry = { txId: tx2.txid, vOut: 2, block: 1, txIndex: 2, amount: 500_000_000 };
    expect(utxoRecords(view, addrC, q())).toEqual([{ ...p2pkEntry, type: 'PUBKEY' }]);
    expect(utxoRecords(view, addrC, q('type=PUBKEY'))).toEqual([p2pkEntry]);
    expect(utxoRecords(view, addrC, q('type=P2PKH'))).toEqual([]);
    expect(utxoRecords(view, addrC, q('type=other'))).toEqual([{ ...p2pkEntry, type: 'PUBKEY' }]); // unknown values are ignored
  });

  it('excludes spent (also mempool-spent) and unconfirmed outputs', () => {
    // A: cb0:0 spent in block 1, tx1:1 spent by mempool tx3, tx4's output unconfirmed
    expect(utxoRecords(view, addrA, q())).toEqual([]);
    expect(utxoRecords(view, scriptAddress(p2shS)!, q())).toEqual([{ txId: tx2.txid, vOut: 1, block: 1, txIndex: 2, amount: 500_000_000 }]);
  });

  it('pages, orders and filters', () => {
    const vouts = (s: string): number[] => utxoRecords(view, addrB, q(s)).map((e) => e.vOut as number);
    expect(vouts('order=desc')).toEqual([1, 0]);
    expect(vouts('order=whatever')).toEqual([1, 0]);
    expect(vouts('order_by_amount=True')).toEqual([1, 0]);
    expect(vouts('order_by_amount=1&order=desc')).toEqual([0, 1]);
    expect(vouts('order_by_amount=true')).toEqual([0, 1]);
    expect(vouts('limit=1')).toEqual([0]);
    expect(vouts('limit=1&page=2')).toEqual([1]);
    expect(vouts('limit=1&page=3')).toEqual([]);
    expect(vouts('limit=0&page=0')).toEqual([0, 1]);
    expect(vouts('limit=abc&page=-1')).toEqual([0, 1]);
    expect(vouts('limit=5001')).toEqual([0, 1]);
    expect(vouts('from_block=3')).toEqual([]);
    expect(vouts('from_block=2')).toEqual([0, 1]);
    const tr = scriptAddress(p2trS)!;
    expect(utxoRecords(view, tr, q('from_block=2'))).toEqual([]);
    expect(utxoRecords(view, tr, q('from_block=x')).length).toBe(2);
  });

  it('validates addresses', () => {
    const code5 = (addr: string, message: string): void => {
      expect(() => utxoRecords(view, addr, q())).toThrowError(message);
      const r = get(`/v1/blockchain/address/utxo/${addr}`);
      expect(r.status).toBe(400);
      expect(r.body).toBe(`{"error_code": 5, "message": "${message}", "details": ""}`);
    };
    code5('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'mainnet address is invalid for testnet');
    code5('1111111111111111111114oLvT2', 'mainnet address is invalid for testnet');
    code5('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt081', 'invalid address');
    code5('tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', 'invalid address');
    code5('mfWxJ45yp2SFn7UciZyNpvDKrzbhyfKrY9', 'invalid address');
    code5('hello', 'invalid address');
    // witness v0 with bech32m, v1 with bech32, v2 → invalid
    const prog = Array.from(fill(32, 9));
    code5(bech32m.encode('bcrt', [0, ...bech32m.toWords(Uint8Array.from(prog))]), 'invalid address');
    code5(bech32.encode('bcrt', [1, ...bech32.toWords(Uint8Array.from(prog))]), 'invalid address');
    code5(bech32m.encode('bcrt', [2, ...bech32m.toWords(Uint8Array.from(prog))]), 'invalid address');
    expect(decodeAddress('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080').nType).toBe(5);
    expect(decodeAddress('BCRT1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KYGT080').nType).toBe(5);
    expect(H(decodeAddress(scriptAddress(p2shS)!).script)).toBe(H(p2shS));
    expect(H(decodeAddress(scriptAddress(p2wshS)!).script)).toBe(H(p2wshS));
    expect(H(decodeAddress(scriptAddress(p2trS)!).script)).toBe(H(p2trS));
    expect(H(decodeAddress(addrB).script)).toBe(H(p2pkhB));
  });
});

// ---------------------------------------------------------------- server

describe('IndexServer', () => {
  it('serves blocks by height, hash and last in the {data, time} envelope', () => {
    const r = get('/v1/blockchain/block/1');
    expect(r.status).toBe(200);
    expect(r.headers['Content-Type']).toBe('application/json; charset=utf-8');
    expect(r.body.startsWith(`{"data": {"height": 1, "hash": "${b1.hash}", `)).toBe(true);
    expect(r.body).toMatch(/, "time": \d+\.\d+(e-\d\d)?\}$/);
    expect(Object.keys(r.json)).toEqual(['data', 'time']);
    expect(get(`/v1/blockchain/block/${b1.hash}`).json.data).toEqual(r.json.data);
    expect(get(`/v1/blockchain/block/${b1.hash.toUpperCase()}`).json.data).toEqual(r.json.data);
    expect((get('/v1/blockchain/block/last').json.data as Obj).height).toBe(2);
    expect((get('/v1/blockchain/block/%2B1').json.data as Obj).height).toBe(1);
    expect((get('/v1/blockchain/block/%201%20').json.data as Obj).height).toBe(1);
    expect(r.body).toContain('"difficulty": 4.6565423739069247e-10, ');
  });

  it('writes time rounded to 4 decimals', () => {
    let t = 100;
    const s = new IndexServer(view, { now: () => (t += 0.00123456) });
    const res = s.handle({ method: 'GET', path: '/v1/blockchain/block/0', query: new URLSearchParams() });
    expect(res.body.endsWith(', "time": 0.0012}')).toBe(true);
    const s0 = new IndexServer(view, { now: () => 5 });
    expect(s0.handle({ method: 'GET', path: '/v1/blockchain/block/0', query: new URLSearchParams() }).body.endsWith(', "time": 0.0}')).toBe(true);
  });

  it('block errors', () => {
    const err = (path: string, status: number, body: string): void => {
      const r = get(path);
      expect([path, r.status, r.body]).toEqual([path, status, body]);
    };
    const bad = '{"error_code": 2, "message": "invalid block pointer", "details": ""}';
    const nf = '{"error_code": 0, "message": "block not found", "details": ""}';
    err('/v1/blockchain/block/3', 404, nf);
    err('/v1/blockchain/block/-1', 404, nf);
    err('/v1/blockchain/block/' + 'ab'.repeat(32), 404, nf);
    err('/v1/blockchain/block/abc', 400, bad);
    err('/v1/blockchain/block/1.5', 400, bad);
    err('/v1/blockchain/block/123456789012', 400, bad);
    err('/v1/blockchain/block/' + 'zz'.repeat(32), 400, bad);
    err('/v1/blockchain/block/' + 'ab'.repeat(33), 400, bad);
  });

  it('serves transactions by txid and by height:index', () => {
    const r = get(`/v1/blockchain/transaction/${tx1.txid}`);
    expect(r.status).toBe(200);
    expect((r.json.data as Obj).txId).toBe(tx1.txid);
    expect(r.body).toContain('"valid": true, "feeRate": ');
    expect(get('/v1/blockchain/transaction/1:2').json.data).toEqual(get(`/v1/blockchain/transaction/${tx2.txid}`).json.data);
    const raw = get(`/v1/blockchain/transaction/${tx1.txid}?raw_tx=True`).json.data as Obj;
    expect(Object.keys(raw).indexOf('rawTx')).toBe(Object.keys(raw).indexOf('vOut') + 1);
    expect(H(base64.decode(raw.rawTx as string))).toBe(H(tx1.raw));
    expect('rawTx' in (get(`/v1/blockchain/transaction/${tx1.txid}?raw_tx=yes`).json.data as Obj)).toBe(false);
    expect((get(`/v1/blockchain/transaction/${tx3.txid}`).json.data as Obj).mempoolRank).toBe(1);
  });

  it('transaction errors', () => {
    const e = (path: string): [number, string] => {
      const r = get(path);
      return [r.status, r.body];
    };
    const nf: [number, string] = [404, '{"error_code": 0, "message": "transaction not found", "details": ""}'];
    expect(e('/v1/blockchain/transaction/' + 'ab'.repeat(32))).toEqual(nf);
    expect(e('/v1/blockchain/transaction/1:9')).toEqual(nf);
    expect(e('/v1/blockchain/transaction/9:0')).toEqual(nf);
    expect(e('/v1/blockchain/transaction/99999999999999999999:0')).toEqual(nf);
    expect(e('/v1/blockchain/transaction/%201_0%20:0')).toEqual(nf);
    expect(e('/v1/blockchain/transaction/' + 'zz'.repeat(32))).toEqual([400, '{"error_code": 5, "message": "invalid transaction hash", "details": ""}']);
    const badPtr: [number, string] = [400, '{"error_code": 5, "message": "invalid transaction pointer", "details": ""}'];
    expect(e('/v1/blockchain/transaction/abc')).toEqual(badPtr);
    expect(e('/v1/blockchain/transaction/1:-1')).toEqual(badPtr);
    expect(e('/v1/blockchain/transaction/1:')).toEqual(badPtr);
    expect(e('/v1/blockchain/transaction/' + '1'.repeat(63))).toEqual(badPtr);
    // the server reads k[0] and k[1] of pointer.split(':') only
    expect(get('/v1/blockchain/transaction/1:2:3').json.data).toEqual(get('/v1/blockchain/transaction/1:2').json.data);
  });

  it('serves address utxo', () => {
    const r = get(`/v1/blockchain/address/utxo/${addrB}?limit=1`);
    expect(r.status).toBe(200);
    expect(r.body.startsWith(`{"data": [{"txId": "${cb2.txid}", "vOut": 0, "block": 2, "txIndex": 0, "amount": 3000000000, "type": "P2PKH"}], "time": `)).toBe(true);
    expect(get(`/v1/blockchain/address/utxo/${addrA}`).body).toMatch(/^\{"data": \[\], "time": [0-9.e-]+\}$/);
  });

  it('catch-all 404, 405 and 500', () => {
    const nf = '{"about": "BTCAPI server", "error": "Endpoint not found"}';
    for (const p of ['/', '/v1/blockchain/block/', '/v1/blockchain/block/1/', '/v1/blockchain/blocks/1', '/rest/block/1', '/v1/blockchain/transaction']) {
      const r = get(p);
      expect([p, r.status, r.body]).toEqual([p, 404, nf]);
    }
    expect(get('/nope', 'POST').status).toBe(404);
    const m = get('/v1/blockchain/block/1', 'POST');
    expect(m.status).toBe(405);
    expect(m.headers['Content-Type']).toMatch(/^text\/plain/);
    expect(get('/v1/blockchain/block/1', 'DELETE').status).toBe(405);
    const head = get('/v1/blockchain/block/1', 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
    const broken = new IndexServer({ ...view, tipHeight: () => 2, blockAt: () => { throw new Error('db down'); } } as unknown as ChainView);
    const r = broken.handle({ method: 'GET', path: '/v1/blockchain/block/1', query: new URLSearchParams() });
    expect([r.status, r.body]).toEqual([500, '{"error_code": 1, "message": "internal server error", "details": ""}']);
  });
});

// ---------------------------------------------------------------- against the real devnet chain

describe('records over the devnet Chain', () => {
  const chain = new Chain({ clock: () => 1_700_000_000 });
  for (let i = 0; i < 3; i++) chain.mineBlock(p2wpkhA);
  const s = new IndexServer(chain);
  const call = (path: string): Obj => JSON.parse(s.handle({ method: 'GET', path, query: new URLSearchParams() }).body) as Obj;

  it('renders the regtest genesis block and its coinbase', () => {
    const g = call('/v1/blockchain/block/0').data as Obj;
    expect(Object.keys(g)).toEqual(Object.keys(dataOf('bgl_block_37258.json')));
    expect(g.hash).toBe(REGTEST_GENESIS_HASH);
    const header = base64.decode(g.header as string);
    expect(H(rev(dsha(header.slice(0, 80))))).toBe(REGTEST_GENESIS_HASH);
    expect(g).toMatchObject({ version: 1, versionHex: '01', bits: 0x207fffff, nonce: 2, nonceHex: '00000002', difficulty: 4.6565423739069247e-10, confirmations: 4, transactionsCount: 1, estimatedBlockReward: 5_000_000_000, blockReward: 5_000_000_000, blockFeeReward: 0, amount: 5_000_000_000 });
    expect(g.blockDifficulty).toBe(targetToDifficulty(BigInt('0x' + REGTEST_GENESIS_HASH)));
    const txid = chain.blockAt(0)!.txs[0]!.txid;
    const tx = call(`/v1/blockchain/transaction/${txid}`).data as Obj;
    expect(tx).toMatchObject({ coinbase: true, segwit: false, merkleProof: '', fee: 0, data: null, blockIndex: 0 });
    expect(verifyMerkleProof(txid, 0, tx.merkleProof as string, chain.blockAt(0)!.merkleRoot)).toBe(true);
    const out0 = (tx.vOut as Obj)['0'] as Obj;
    expect(out0).toMatchObject({ nType: 2, type: 'PUBKEY', reqSigs: 1, scriptPubKeyOpcodes: '[65] OP_CHECKSIG' });
    expect((out0.address as string)[0]).toMatch(/[mn]/);
  });

  it('renders mined blocks, coinbase txs and the utxo list', () => {
    const tip = call('/v1/blockchain/block/last').data as Obj;
    expect(tip).toMatchObject({ height: 3, confirmations: 1, nextBlockHash: null, previousBlockHash: chain.blockAt(2)!.hash });
    expect(H(rev(dsha(base64.decode(tip.header as string).slice(0, 80))))).toBe(tip.hash);
    expect(tip.weight).toBe(3 * (tip.strippedSize as number) + (tip.size as number));
    const cb = chain.blockAt(3)!.txs[0]!;
    const rec = call(`/v1/blockchain/transaction/${cb.txid}`).data as Obj;
    expect(Object.keys(rec)).toEqual(TX_ORDER.filter((k) => k in rec));
    expect(rec.weight).toBe(3 * (rec.bSize as number) + (rec.size as number));
    expect(rec.vSize).toBe(Math.ceil((rec.weight as number) / 4));
    expect(verifyMerkleProof(cb.txid, 0, rec.merkleProof as string, chain.blockAt(3)!.merkleRoot)).toBe(true);
    const utxo = call(`/v1/blockchain/address/utxo/${addrA}`).data as Obj[];
    expect(utxo.map((u) => u.block)).toEqual([1, 2, 3]);
    expect(Object.keys(utxo[0]!)).toEqual(['txId', 'vOut', 'block', 'txIndex', 'amount']);
  });
});
