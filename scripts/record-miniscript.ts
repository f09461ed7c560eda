/**
 * Records Bitcoin Core's answers for the miniscript / taproot-tree descriptor corpus of issue #32
 * into test/fixtures/miniscript/core-<generation>.jsonl (one line per case: the descriptor, the range
 * asked, getdescriptorinfo's result or error, deriveaddresses' result or error, and the Core
 * version that answered). test/bitcoin/miniscript-core.test.ts compares our code to these lines.
 *
 * Usage (one private regtest node per run; temp datadir and free port, removed afterwards):
 *   BITCOIND=$(/work/shared/core/unpack.sh 31.99)/bitcoind npx tsx scripts/record-miniscript.ts
 *   BITCOIND=$(/work/shared/core/unpack.sh 30.99)/bitcoind npx tsx scripts/record-miniscript.ts
 *
 * The keys are derived from fixed seeds, so a re-run writes the same descriptors.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HDKey } from '@scure/bip32';
import { base58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { startBitcoind } from '../test/support/bitcoind';
import { toHex } from '../shared/bitcoin/hex';
import { descriptorChecksum } from '../shared/bitcoin/descriptor-checksum';

const TPUB = { public: 0x043587cf, private: 0x04358394 };

function account(name: string): { xpub: string; origin: string; fp: string; root: HDKey } {
  const root = HDKey.fromMasterSeed(sha256(new TextEncoder().encode(`spyglass-miniscript-${name}`)), TPUB);
  const acct = root.derive("m/48'/1'/0'/2'");
  const fp = toHex(Uint8Array.from([(root.fingerprint >>> 24) & 0xff, (root.fingerprint >>> 16) & 0xff, (root.fingerprint >>> 8) & 0xff, root.fingerprint & 0xff]));
  return { xpub: acct.publicExtendedKey, origin: `[${fp}/48h/1h/0h/2h]`, fp, root };
}

const a = account('A');
const b = account('B');
const c = account('C');
const d = account('D');
/** Ranged keys (receive branch), multipath keys, fixed keys. */
const A = `${a.origin}${a.xpub}/0/*`;
const B = `${b.origin}${b.xpub}/0/*`;
const C = `${c.origin}${c.xpub}/0/*`;
const AM = `${a.origin}${a.xpub}/<0;1>/*`;
const BM = `${b.origin}${b.xpub}/<0;1>/*`;
const CM = `${c.origin}${c.xpub}/<0;1>/*`;
const D3M = `${d.origin}${d.xpub}/<0;1;2>/*`;
const hexKey = (acct: ReturnType<typeof account>, i: number): string => toHex(acct.root.derive(`m/0/${i}`).publicKey!);
const KA = hexKey(a, 0);
const KB = hexKey(b, 0);
const KC = hexKey(c, 0);
const XA = KA.slice(2);
const XB = KB.slice(2);
const NUMS = '50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0';
/** The generator point, uncompressed. */
const UNCOMPRESSED = '0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';
const H32 = toHex(sha256(new TextEncoder().encode('preimage')));
const H20 = H32.slice(0, 40);
const manyPkh = (n: number): string => {
  let s = `pkh(${hexKey(d, n - 1)})`;
  for (let i = n - 2; i >= 0; i--) s = `and_v(v:pkh(${hexKey(d, i)}),${s})`;
  return s;
};

/** A mainnet xpub from Core's tests with tpub version bytes (regtest nodes refuse xpubs). */
function toTpub(xpub: string): string {
  const raw = base58check(sha256).decode(xpub);
  raw.set([0x04, 0x35, 0x87, 0xcf], 0);
  return base58check(sha256).encode(raw);
}

// Keys of Core's src/test/descriptor_tests.cpp miniscript cases
const K1 = '0375bdf05ad80cb5f2e8f4a5913634577563d2ba23db256f12b737393348cc0684';
const K2 = '032707170c71d8f75e4ca4e3fce870b9409dcaf12b051d3bcadff74747fa7619c0';
const K3 = '02aa27e5eb2c185e87cd1dbc3e0efc9cb1175235e0259df1713424941c3cb40402';
const T1 = toTpub('xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL');
const T2 = toTpub('xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y');
const ANDOR = `and_v(vc:andor(pk(${K1}),pk_k(${K2}),and_v(v:older(1),pk_k(${K3}))),after(10))`;

interface Case {
  descriptor: string;
  range?: [number, number];
  note: string;
}

const R: [number, number] = [0, 2];
export const CORPUS: Case[] = [
  // The five policies of issue #32
  { note: 'A, or B after 10 blocks', descriptor: `wsh(or_d(pk(${A}),and_v(v:pkh(${B}),older(10))))`, range: R },
  { note: 'A, or B after height 200', descriptor: `wsh(or_d(pk(${A}),and_v(v:pkh(${B}),after(200))))`, range: R },
  { note: '2-of-3 decaying to 1-of-3 after 20 blocks', descriptor: `wsh(thresh(2,pk(${A}),s:pk(${B}),s:pk(${C}),sln:older(20)))`, range: R },
  { note: 'tr multi_a 2-of-3 under NUMS', descriptor: `tr(${NUMS},multi_a(2,${A},${B},${C}))`, range: R },
  { note: 'tr key path plus timelocked leaf', descriptor: `tr(${A},and_v(v:pk(${B}),older(10)))`, range: R },
  // The same with BIP389 multipath
  { note: 'multipath A or B after 10', descriptor: `wsh(or_d(pk(${AM}),and_v(v:pkh(${BM}),older(10))))`, range: R },
  { note: 'multipath decaying', descriptor: `wsh(thresh(2,pk(${AM}),s:pk(${BM}),s:pk(${CM}),sln:older(20)))`, range: R },
  { note: 'multipath tr multi_a', descriptor: `tr(${NUMS},sortedmulti_a(2,${AM},${BM},${CM}))`, range: R },
  { note: 'multipath tr tree', descriptor: `tr(${AM},{pk(${BM}),and_v(v:pk(${CM}),older(144))})`, range: R },
  { note: 'multipath mismatch in miniscript', descriptor: `wsh(or_d(pk(${AM}),and_v(v:pkh(${D3M}),older(10))))`, range: R },
  { note: 'multipath mismatch in tr', descriptor: `tr(${AM},pk(${D3M}))`, range: R },
  { note: 'multipath mismatch in multi_a', descriptor: `tr(${NUMS},multi_a(1,${AM},${D3M}))`, range: R },
  // Every fragment and wrapper, P2WSH
  { note: 'pk_k/c:', descriptor: `wsh(c:pk_k(${KA}))` },
  { note: 'pk_h', descriptor: `wsh(c:pk_h(${KA}))` },
  { note: 'pkh sugar', descriptor: `wsh(pkh(${KA}))` },
  { note: 'sha256', descriptor: `wsh(and_v(v:pk(${KA}),sha256(${H32})))` },
  { note: 'hash256', descriptor: `wsh(and_v(v:pk(${KA}),hash256(${H32})))` },
  { note: 'ripemd160', descriptor: `wsh(and_v(v:pk(${KA}),ripemd160(${H20})))` },
  { note: 'hash160', descriptor: `wsh(and_v(v:pk(${KA}),hash160(${H20})))` },
  { note: 'andor', descriptor: `wsh(andor(pk(${KA}),older(1000),pk(${KB})))` },
  { note: 'and_n', descriptor: `wsh(or_d(pk(${KC}),and_n(pk(${KA}),older(3))))` },
  { note: 'and_b + a:', descriptor: `wsh(and_b(pk(${KA}),a:pk(${KB})))` },
  { note: 'and_b + s:', descriptor: `wsh(and_b(pk(${KA}),s:pk(${KB})))` },
  { note: 'or_b', descriptor: `wsh(or_b(pk(${KA}),s:pk(${KB})))` },
  { note: 'or_c', descriptor: `wsh(t:or_c(pk(${KA}),v:pk(${KB})))` },
  { note: 'or_i', descriptor: `wsh(or_i(pk(${KA}),pk(${KB})))` },
  { note: 'd: wrapper', descriptor: `wsh(thresh(2,pk(${KA}),s:pk(${KB}),sdv:older(10)))` },
  { note: 'j: wrapper', descriptor: `wsh(or_d(pk(${KA}),j:and_v(vc:pk_h(${KB}),pk(${KC}))))` },
  { note: 'n: wrapper', descriptor: `wsh(and_b(pk(${KA}),sn:pk(${KB})))` },
  { note: 'l: and u: wrappers', descriptor: `wsh(or_i(and_v(v:pk(${KA}),l:pk(${KB})),u:pk(${KC})))` },
  { note: 't: wrapper', descriptor: `wsh(and_v(v:pk(${KA}),t:older(5)))` },
  { note: 'thresh', descriptor: `wsh(thresh(2,pk(${KA}),s:pk(${KB}),a:pk(${KC})))` },
  { note: 'multi in wsh miniscript', descriptor: `wsh(or_d(multi(2,${KA},${KB},${KC}),and_v(v:pk(${KA}),older(100))))` },
  { note: 'sortedmulti in wsh', descriptor: `wsh(sortedmulti(2,${KC},${KB},${KA}))` },
  { note: 'older time-based', descriptor: `wsh(and_v(v:pk(${KA}),older(4194305)))` },
  { note: 'after time-based', descriptor: `wsh(and_v(v:pk(${KA}),after(1700000000)))` },
  { note: 'large older number', descriptor: `wsh(and_v(v:pk(${KA}),older(65535)))` },
  { note: 'sh(wsh(miniscript))', descriptor: `sh(wsh(or_d(pk(${KA}),and_v(v:pkh(${KB}),older(10)))))` },
  { note: 'hardened origin marker apostrophe', descriptor: `wsh(or_d(pk([${a.fp}/48'/1'/0'/2']${a.xpub}/0/*),and_v(v:pkh(${B}),older(10))))`, range: [5, 6] },
  // Tapscript
  { note: 'tr pk leaf x-only', descriptor: `tr(${XA},pk(${XB}))` },
  { note: 'tr tree {A,{B,C}}', descriptor: `tr(${A},{pk(${B}),{and_v(v:pk(${C}),older(10)),multi_a(1,${B},${C})}})`, range: R },
  { note: 'tr tree {{A,B},C}', descriptor: `tr(${NUMS},{{pk(${A}),pk(${B})},pk(${C})})`, range: R },
  { note: 'tr pkh leaf', descriptor: `tr(${NUMS},pkh(${KA}))` },
  { note: 'tr miniscript with hashes', descriptor: `tr(${NUMS},and_v(v:pk(${KA}),sha256(${H32})))` },
  { note: 'tr d: is u in tapscript', descriptor: `tr(${NUMS},thresh(2,pk(${KA}),s:pk(${KB}),sdv:older(10)))` },
  { note: 'tr sortedmulti_a', descriptor: `tr(${NUMS},sortedmulti_a(2,${KC},${KB},${KA}))` },
  { note: 'tr multi_a inside miniscript', descriptor: `tr(${NUMS},or_d(multi_a(2,${KA},${KB}),and_v(v:pk(${KC}),older(10))))` },
  { note: 'tr 33-byte key in leaf', descriptor: `tr(${NUMS},pk(${KA}))` },
  // Errors: sanity
  { note: 'duplicate keys', descriptor: `wsh(or_b(pk(${KA}),s:pk(${KA})))` },
  { note: 'duplicate keys across ranged', descriptor: `wsh(or_d(pk(${A}),and_v(v:pkh(${A}),older(10))))`, range: R },
  { note: 'mixed timelocks', descriptor: `wsh(and_v(v:pk(${KA}),and_v(v:after(100),after(500000001))))` },
  { note: 'mixed relative timelocks', descriptor: `wsh(and_v(v:pk(${KA}),and_v(v:older(10),older(4194305))))` },
  { note: 'thresh mixed timelocks', descriptor: `wsh(thresh(2,pk(${KA}),s:pk(${KB}),sln:after(100),sln:after(500000001)))` },
  { note: 'no signature', descriptor: `wsh(older(10))` },
  { note: 'no signature hash', descriptor: `wsh(sha256(${H32}))` },
  { note: 'malleable', descriptor: `wsh(or_i(pk(${KA}),older(10)))` },
  { note: 'malleable or_b', descriptor: `wsh(or_b(pk(${KA}),s:sha256(${H32})))` },
  { note: 'malleable thresh', descriptor: `wsh(thresh(1,pk(${KA}),s:pk(${KB})))` },
  { note: 'invalid type', descriptor: `wsh(and_v(pk(${KA}),pk(${KB})))` },
  { note: 'invalid top V', descriptor: `wsh(v:pk(${KA}))` },
  { note: 'not satisfiable', descriptor: `wsh(and_b(pk(${KA}),a:0))` },
  { note: 'ops limit', descriptor: `wsh(${manyPkh(51)})` },
  { note: 'ops within limit', descriptor: `wsh(${manyPkh(40)})` },
  { note: 'vv wrapper', descriptor: `wsh(and_v(vv:pk(${KA}),pk(${KB})))` },
  { note: 'unknown wrapper', descriptor: `wsh(and_v(x:pk(${KA}),pk(${KB})))` },
  { note: 'older(0)', descriptor: `wsh(and_v(v:pk(${KA}),older(0)))` },
  { note: 'after too big', descriptor: `wsh(and_v(v:pk(${KA}),after(2147483648)))` },
  { note: 'bad hash length', descriptor: `wsh(and_v(v:pk(${KA}),sha256(${H20})))` },
  { note: 'thresh k too big', descriptor: `wsh(thresh(3,pk(${KA}),s:pk(${KB})))` },
  { note: 'x-only key in wsh', descriptor: `wsh(and_v(v:pk(${XA}),pk(${KB})))` },
  { note: 'uncompressed key in wsh miniscript', descriptor: `wsh(and_v(v:pk(${UNCOMPRESSED}),pk(${KB})))` },
  { note: 'bad key in miniscript', descriptor: `wsh(and_v(v:pk(${KA}),pk(nokey)))` },
  { note: 'miniscript at top level', descriptor: `and_v(v:pk(${KA}),pk(${KB}))` },
  { note: 'miniscript in sh', descriptor: `sh(and_v(v:pk(${KA}),pk(${KB})))` },
  { note: 'multi_a in wsh', descriptor: `wsh(multi_a(1,${KA}))` },
  { note: 'multi in tr leaf', descriptor: `tr(${NUMS},multi(1,${KA}))` },
  { note: 'miniscript multi in tapscript', descriptor: `tr(${NUMS},or_d(multi(1,${KA}),pk(${KB})))` },
  { note: 'multi_a threshold 0', descriptor: `tr(${NUMS},multi_a(0,${KA}))` },
  { note: 'multi_a threshold too big', descriptor: `tr(${NUMS},multi_a(3,${KA},${KB}))` },
  { note: 'tr unbalanced brace', descriptor: `tr(${NUMS},{pk(${KA}),pk(${KB})`},
  { note: 'tr single in braces', descriptor: `tr(${NUMS},{pk(${KA})})` },
  { note: 'tr two leaves without braces', descriptor: `tr(${NUMS},pk(${KA}),pk(${KB}))` },
  { note: 'tr bad leaf', descriptor: `tr(${NUMS},{pk(${KA}),foo(${KB})})` },
  { note: 'wsh non-function', descriptor: `wsh(foo)` },
  { note: 'unnecessary range', descriptor: `wsh(or_d(pk(${KA}),and_v(v:pkh(${KB}),older(10))))`, range: R },
  // Core's descriptor_tests.cpp miniscript cases
  { note: 'core: valid andor', descriptor: `wsh(${ANDOR})` },
  { note: 'core: bad checksum', descriptor: `wsh(${ANDOR})#abcdef12` },
  { note: 'core: only wsh', descriptor: `sh(${ANDOR})` },
  { note: 'core: tr key error', descriptor: `tr(${ANDOR})` },
  { note: 'core: raw', descriptor: `raw(${ANDOR})` },
  { note: 'core: insane top', descriptor: `wsh(and_b(vc:andor(pk(${K1}),pk_k(${K2}),and_v(v:older(1),pk_k(${K3}))),after(10)))` },
  { note: 'core: invalid sub', descriptor: `wsh(and_v(vc:andor(v:pk_k(${K1}),pk_k(${K2}),and_v(v:older(1),pk_k(${K3}))),after(10)))` },
  { note: 'core: no sig sub', descriptor: `wsh(or_i(older(1),pk(${K1})))` },
  { note: 'core: malleable sub', descriptor: `wsh(or_b(sha256(cdabb7f2dce7bfbd8a0b9570c6fd1e712e5d64045e9d6b517b3d5072251dc204),s:pk(${K1})))` },
  { note: 'core: timelock mix sub', descriptor: `wsh(and_b(and_b(older(1),a:older(100000000)),s:pk(${K1})))` },
  { note: 'core: duplicate sub', descriptor: `wsh(and_b(or_b(pkh(${K1}),s:pk(${K2})),s:pk(${K1})))` },
  { note: 'core: extended keys', descriptor: `wsh(and_v(v:ripemd160(095ff41131e5946f3c85f79e44adbcf8e27e080e),multi(1,${T1},${T2}/0)))` },
  { note: 'core: sh(wsh) mixed keys', descriptor: `sh(wsh(thresh(1,pkh(${K1}),a:and_n(multi(1,${T1},${T2}/0),n:older(2)))))` },
  { note: 'core: exotic multisig', descriptor: `wsh(thresh(1,pk(${T1}),a:pkh(${T2}/0)))` },
  { note: 'core: two kinds of timelock', descriptor: `sh(wsh(thresh(2,ndv:after(1000),a:and_n(multi(1,${T1},${T2}/0),n:older(2)))))` },
  { note: 'core: ripemd160', descriptor: `wsh(and_v(v:ripemd160(ff9aa1829c90d26e73301383f549e1497b7d6325),pk(${T1})))` },
  { note: 'core: sha256', descriptor: `wsh(and_v(v:sha256(7426ba0604c3f8682c7016b44673f85c5bd9da2fa6c1080810cf53ae320c9863),pk(${T1})))` },
  { note: 'core: hash160', descriptor: `wsh(and_v(v:hash160(292e2df59e3a22109200beed0cdc84b12e66793e),pk(${T1})))` },
  { note: 'core: hash256', descriptor: `wsh(and_v(v:hash256(ae253ca2a54debcac7ecf414f6734f48c56421a08bb59182ff9f39a6fffdb588),pk(${T1})))` },
  { note: 'core: ranged tpub in tr leaves', descriptor: `tr(${T1}/0/*,{pk(${T2}/0/*),multi_a(1,${T1}/1/*,${T2}/1/*)})`, range: [0, 1] },
  // musig() (BIP390), where the generation accepts it
  { note: 'musig: key path', descriptor: `tr(musig(${K1},${K2}))` },
  { note: 'musig: participant order matters', descriptor: `tr(musig(${K2},${K1}))` },
  { note: 'musig: same key twice', descriptor: `tr(musig(${K1},${K1}))` },
  { note: 'musig: three keys', descriptor: `tr(musig(${KA},${KB},${KC}))` },
  { note: 'musig: derivation after musig', descriptor: `tr(musig(${T1},${T2})/0/*)`, range: R },
  { note: 'musig: derivation with participant paths', descriptor: `tr(musig(${T1}/0,${T2}/1)/3/*)`, range: R },
  { note: 'musig: ranged participants', descriptor: `tr(musig(${A},${B}))`, range: R },
  { note: 'musig: multipath after musig', descriptor: `tr(musig(${T1},${T2})/<0;1>/*)`, range: R },
  { note: 'musig: multipath participants', descriptor: `tr(musig(${AM},${BM}))`, range: R },
  { note: 'musig: in a leaf', descriptor: `tr(${NUMS},pk(musig(${K1},${K2})))` },
  { note: 'musig: leaf next to multi_a', descriptor: `tr(${NUMS},{pk(musig(${KA},${KB})),multi_a(1,${KA},${KB})})` },
  { note: 'musig: in miniscript leaf', descriptor: `tr(${NUMS},and_v(v:pk(musig(${K1},${K2})),older(10)))` },
  { note: 'musig: rawtr', descriptor: `rawtr(musig(${K1},${K2}))` },
  { note: 'musig: not in wsh', descriptor: `wsh(pk(musig(${K1},${K2})))` },
  { note: 'musig: empty', descriptor: `tr(musig())` },
  { note: 'musig: derivation needs xpubs', descriptor: `tr(musig(${K1},${K2})/0/*)` },
  { note: 'musig: ranged participants and derivation', descriptor: `tr(musig(${A},${B})/0/*)` },
  { note: 'musig: hardened child', descriptor: `tr(musig(${T1},${T2})/*h)` },
  { note: 'musig: hardened step', descriptor: `tr(musig(${T1},${T2})/0h/*)` },
  { note: 'musig: x-only participant', descriptor: `tr(musig(${XA},${XB}))` },
  { note: 'musig: nested', descriptor: `tr(musig(musig(${K1},${K2}),${K3}))` },
  { note: 'musig: double multipath', descriptor: `tr(musig(${AM},${BM})/<0;1>/*)` },
  { note: 'musig: origin on participant', descriptor: `tr(musig([${a.fp}/1h]${K1},${K2}))` },
  { note: 'wrong checksum', descriptor: `wsh(or_d(pk(${KA}),and_v(v:pkh(${KB}),older(10))))#00000000` },
  { note: 'range missing', descriptor: `wsh(or_d(pk(${A}),and_v(v:pkh(${B}),older(10))))` },
];

/** mulberry32: a small seeded PRNG, so the random corpus is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Random miniscripts (a fixed seed): fragments, wrappers, keys from a small pool (so duplicates
 * happen), heights and times mixed — most are refused somewhere (invalid types, insane), the rest
 * give addresses; either way Core's answer is the reference for our type system, sanity rules,
 * error texts and scripts.
 */
function randomCorpus(seed: number, count: number, tap: boolean, depth = 3): Case[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const keys = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => hexKey(d, 100 + i));
  const key = (): string => (tap && rnd() < 0.3 ? pick(keys).slice(2) : pick(keys));
  const older = [1, 10, 144, 65535, 4194305, 4194400];
  const after = [100, 840000, 500000001, 1231488000];
  const leaf = (): string => {
    switch (Math.floor(rnd() * 12)) {
      case 0:
      case 1:
        return `pk(${key()})`;
      case 2:
        return `pkh(${key()})`;
      case 3:
        return `older(${pick(older)})`;
      case 4:
        return `after(${pick(after)})`;
      case 5:
        return pick([`sha256(${H32})`, `hash256(${H32})`, `ripemd160(${H20})`, `hash160(${H20})`]);
      case 6: {
        const n = 1 + Math.floor(rnd() * 3);
        const ks = Array.from({ length: n }, key).join(',');
        return `${tap ? 'multi_a' : 'multi'}(${1 + Math.floor(rnd() * n)},${ks})`;
      }
      case 7:
        return pick(['0', '1']);
      case 8:
        return `pk_k(${key()})`;
      case 9:
        return `pk_h(${key()})`;
      default:
        return `pk(${key()})`;
    }
  };
  const wrap = (e: string, hint: string): string => {
    let w = hint;
    if (rnd() < 0.35) w = pick(['a', 's', 'c', 'd', 'v', 'j', 'n', 'l', 'u', 't']) + w;
    if (!w) return e;
    const m = /^([a-z]+):/.exec(e);
    return m ? `${w}${e}` : `${w}:${e}`;
  };
  const gen = (depth: number): string => {
    if (depth <= 0 || rnd() < 0.3) return wrap(leaf(), '');
    const x = (hint = ''): string => wrap(gen(depth - 1), hint);
    switch (Math.floor(rnd() * 9)) {
      case 0:
        return `and_v(${x('v')},${x()})`;
      case 1:
        return `and_b(${x()},${x(pick(['s', 'a']))})`;
      case 2:
        return `and_n(${x()},${x()})`;
      case 3:
        return `andor(${x()},${x()},${x()})`;
      case 4:
        return `or_b(${x()},${x(pick(['s', 'a']))})`;
      case 5:
        return `or_c(${x()},${x('v')})`;
      case 6:
        return `or_d(${x()},${x()})`;
      case 7:
        return `or_i(${x()},${x()})`;
      default: {
        const n = 2 + Math.floor(rnd() * 3);
        const subs = [x(), ...Array.from({ length: n - 1 }, () => x(pick(['s', 'a'])))];
        return `thresh(${1 + Math.floor(rnd() * n)},${subs.join(',')})`;
      }
    }
  };
  return Array.from({ length: count }, (_, i) => {
    const ms = gen(depth);
    return { note: `random ${tap ? 'tapscript' : 'p2wsh'} depth ${depth} #${i}`, descriptor: tap ? `tr(${NUMS},${ms})` : `wsh(${ms})` };
  });
}

CORPUS.push(...randomCorpus(32, 300, false), ...randomCorpus(33, 200, true), ...randomCorpus(34, 200, false, 2), ...randomCorpus(35, 150, true, 2));

async function main(): Promise<void> {
  const node = await startBitcoind({});
  try {
    const net = await node.rpc.call<{ subversion: string }>('getnetworkinfo');
    const version = /Satoshi:([0-9.]+)/.exec(net.subversion)![1]!;
    const generation = version.split('.').slice(0, 2).join('.');
    const lines: string[] = [];
    for (const c of CORPUS) {
      const out: Record<string, unknown> = { core: version, note: c.note, descriptor: c.descriptor, range: c.range ?? null };
      let withChecksum = c.descriptor;
      try {
        const info = await node.rpc.call<{ checksum: string }>('getdescriptorinfo', [c.descriptor]);
        out.info = info;
        withChecksum = `${c.descriptor}#${info.checksum}`;
      } catch (e) {
        out.info_error = (e as Error).message;
        // deriveaddresses requires a checksum; append one so it reports its parse error too
        const sum = c.descriptor.includes('#') ? '' : descriptorChecksum(c.descriptor);
        if (sum) withChecksum = `${c.descriptor}#${sum}`;
      }
      out.checked = withChecksum;
      try {
        out.addresses = await node.rpc.call('deriveaddresses', c.range ? [withChecksum, c.range] : [withChecksum]);
      } catch (e) {
        out.error = (e as Error).message;
      }
      lines.push(JSON.stringify(out));
    }
    const dir = join(import.meta.dirname, '..', 'test', 'fixtures', 'miniscript');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `core-${generation}.jsonl`), lines.join('\n') + '\n');
    console.log(`wrote ${lines.length} cases from Core ${version}`);
  } finally {
    await node.stop();
  }
}

// run when executed (record-miniscript-fill.ts imports the corpus)
if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) await main();
