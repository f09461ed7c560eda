import { describe, expect, it } from 'vitest';
import { coreGroup } from '../fixtures';
import { fromHex, isHex, reverseHex, toHex } from '../../shared/bitcoin/hex';
import { REGTEST } from '../../shared/bitcoin/networks';
import {
  opcodeName,
  parseScriptOps,
  scriptToAsm,
  solver,
} from '../../shared/bitcoin/script';
import { scriptToUniv } from '../../shared/bitcoin/script-univ';
import { inferDescriptor } from '../../shared/bitcoin/infer';

type Obj = Record<string, unknown>;

interface Found {
  key: string;
  value: Obj;
  where: string;
}

/** Every object under one of `keys` anywhere in `x`. */
function collect(x: unknown, keys: string[], where: string, out: Found[]): Found[] {
  if (Array.isArray(x)) {
    x.forEach((v, i) => collect(v, keys, `${where}[${i}]`, out));
  } else if (x && typeof x === 'object') {
    for (const [k, v] of Object.entries(x as Obj)) {
      if (keys.includes(k) && v && typeof v === 'object' && !Array.isArray(v)) out.push({ key: k, value: v as Obj, where: `${where}.${k}` });
      else collect(v, keys, `${where}.${k}`, out);
    }
  }
  return out;
}

const psbts = coreGroup('decodepsbt');

describe('hex', () => {
  it('round-trips and validates like Core', () => {
    const b = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff);
    expect(fromHex(toHex(b))).toEqual(b);
    expect(toHex(new Uint8Array(0))).toBe('');
    expect(toHex(Uint8Array.of(0, 0xab, 0xff))).toBe('00abff');
    expect(fromHex('00ABff')).toEqual(Uint8Array.of(0, 0xab, 0xff));
    expect(() => fromHex('abc')).toThrow();
    expect(() => fromHex('zz')).toThrow();
    expect(isHex('')).toBe(false);
    expect(isHex('abc')).toBe(false);
    expect(isHex('00AbfF')).toBe(true);
    expect(isHex('0g')).toBe(false);
    expect(reverseHex('0011ff')).toBe('ff1100');
  });
});

describe('ScriptToUniv against decodepsbt recordings', () => {
  const spks: Found[] = [];
  const inner: Found[] = [];
  const sigs: Found[] = [];
  for (const r of psbts) {
    collect(r.response.body, ['scriptPubKey'], r.name, spks);
    collect(r.response.body, ['redeem_script', 'witness_script'], r.name, inner);
    collect(r.response.body, ['scriptSig', 'final_scriptSig'], r.name, sigs);
  }

  it('found the recorded scripts', () => {
    expect(spks.length).toBeGreaterThan(50);
    expect(inner.length).toBeGreaterThan(3);
    expect(sigs.length).toBeGreaterThan(10);
  });

  it('every scriptPubKey object (asm, desc, hex, address, type) matches exactly', () => {
    for (const f of spks) {
      const script = fromHex(f.value.hex as string);
      const got = scriptToUniv(script, { includeHex: true, includeAddress: 'desc' in f.value, network: REGTEST });
      expect(JSON.stringify(got), f.where).toBe(JSON.stringify(f.value));
    }
  });

  it('every redeem_script / witness_script object (asm, hex, type) matches exactly', () => {
    for (const f of inner) {
      const got = scriptToUniv(fromHex(f.value.hex as string), { includeHex: true, includeAddress: false, network: REGTEST });
      expect(JSON.stringify(got), f.where).toBe(JSON.stringify(f.value));
    }
  });

  it('every scriptSig / final_scriptSig asm matches (sighash decoding)', () => {
    for (const f of sigs) {
      expect(scriptToAsm(fromHex(f.value.hex as string), true), f.where).toBe(f.value.asm);
    }
  });
});

describe('ScriptToAsmStr', () => {
  const asm = (h: string, sig = false): string => scriptToAsm(fromHex(h), sig);

  it('small pushes are CScriptNums, opcodes by name', () => {
    expect(asm('')).toBe('');
    expect(asm('00')).toBe('0');
    expect(asm('4f')).toBe('-1');
    expect(asm('51')).toBe('1');
    expect(asm('60')).toBe('16');
    expect(asm('6a02beef')).toBe('OP_RETURN -28606');
    expect(asm('0180')).toBe('0'); // negative zero
    expect(asm('0181')).toBe('-1');
    expect(asm('04ffffff7f')).toBe('2147483647');
    expect(asm('04ffffffff')).toBe('-2147483647');
    expect(asm('4c0101')).toBe('1'); // non-minimal push still a number
    expect(asm('050102030405')).toBe('0102030405');
    expect(asm('b1b2ba50bbff')).toBe('OP_CHECKLOCKTIMEVERIFY OP_CHECKSEQUENCEVERIFY OP_CHECKSIGADD OP_RESERVED OP_UNKNOWN OP_INVALIDOPCODE');
    expect(asm('b0b3b9')).toBe('OP_NOP1 OP_NOP4 OP_NOP10');
  });

  it('truncated pushes print [error]', () => {
    expect(asm('02ff')).toBe('[error]');
    expect(asm('5102ff')).toBe('1 [error]');
    expect(asm('4c')).toBe('[error]');
    expect(asm('4d01')).toBe('[error]');
    expect(asm('4e010000')).toBe('[error]');
    expect(asm('4d0100ff')).toBe('-127');
    expect(asm('4d0200ff00')).toBe('255');
  });

  const der = '3044022070ca8c258515da0e1e504777bfbcd39aef1fc1b5a1b2674517f7e1833feb15b202207152dbe49c7232ff8604fbd485a9f7de31856b91d74bc3734d85de5f8c6d540c';
  it('decodes sighash types of DER signatures only when asked and spendable', () => {
    for (const [t, name] of [['01', 'ALL'], ['81', 'ALL|ANYONECANPAY'], ['02', 'NONE'], ['82', 'NONE|ANYONECANPAY'], ['03', 'SINGLE'], ['83', 'SINGLE|ANYONECANPAY']] as const) {
      expect(asm(`47${der}${t}`, true)).toBe(`${der}[${name}]`);
    }
    expect(asm(`47${der}01`, false)).toBe(`${der}01`);
    expect(asm(`47${der}04`, true)).toBe(`${der}04`); // undefined hashtype
    expect(asm(`6a47${der}01`, true)).toBe(`OP_RETURN ${der}01`); // unspendable
    const schnorr64 = 'aa'.repeat(64);
    expect(asm(`40${schnorr64}`, true)).toBe(schnorr64);
    expect(asm(`41${schnorr64}01`, true)).toBe(`${schnorr64}01`);
  });
});

describe('opcodeName and parseScriptOps', () => {
  it('names', () => {
    expect(opcodeName(0)).toBe('0');
    expect(opcodeName(0x4c)).toBe('OP_PUSHDATA1');
    expect(opcodeName(0x05)).toBe('OP_UNKNOWN');
    expect(opcodeName(0x76)).toBe('OP_DUP');
    expect(opcodeName(0xac)).toBe('OP_CHECKSIG');
  });
  it('ops with positions and a failure marker', () => {
    const ops = parseScriptOps(fromHex('76a914' + '11'.repeat(20) + '88ac02ff'));
    expect(ops.map((o) => [o.op, o.pos])).toEqual([[0x76, 0], [0xa9, 1], [0x14, 2], [0x88, 23], [0xac, 24], [0xff, 25]]);
    expect(toHex(ops[2]!.data!)).toBe('11'.repeat(20));
    expect(ops[5]!.error).toBe(true);
    expect(ops[0]!.data).toBeUndefined();
  });
});

describe('Solver', () => {
  const type = (h: string): string => solver(fromHex(h)).type;
  const pk33 = '02' + '11'.repeat(32);
  const pk65 = '04' + '22'.repeat(64);
  it('templates', () => {
    expect(type(`21${pk33}ac`)).toBe('pubkey');
    expect(type(`41${pk65}ac`)).toBe('pubkey');
    expect(type(`21${'05' + '11'.repeat(32)}ac`)).toBe('nonstandard'); // bad header
    expect(type(`41${'06' + '22'.repeat(64)}ac`)).toBe('pubkey'); // hybrid is a valid size
    expect(type('76a914' + '11'.repeat(20) + '88ac')).toBe('pubkeyhash');
    expect(type('a914' + '11'.repeat(20) + '87')).toBe('scripthash');
    expect(type('0014' + '11'.repeat(20))).toBe('witness_v0_keyhash');
    expect(type('0020' + '11'.repeat(32))).toBe('witness_v0_scripthash');
    expect(type('0015' + '11'.repeat(21))).toBe('nonstandard');
    expect(type('5120' + '11'.repeat(32))).toBe('witness_v1_taproot');
    expect(type('51024e73')).toBe('anchor');
    expect(type('52024e73')).toBe('witness_unknown');
    expect(type('5102' + '1111')).toBe('witness_unknown');
    expect(type('6a')).toBe('nulldata');
    expect(type('6a0401020304')).toBe('nulldata');
    expect(type('6a61')).toBe('nonstandard');
    expect(type('6a02ff')).toBe('nonstandard');
    expect(type(`5121${pk33}21${pk33}52ae`)).toBe('multisig');
    expect(type(`0121${pk33}51ae`)).toBe('nonstandard'); // non-minimal push of k
    expect(type(`5221${pk33}51ae`)).toBe('nonstandard'); // k > n
    expect(type(`5121${pk33}52ae`)).toBe('nonstandard'); // n != number of keys
    expect(type('')).toBe('nonstandard');
  });
  it('solutions', () => {
    const ms = solver(fromHex(`5121${pk33}41${pk65}52ae`));
    expect(ms.solutions.map(toHex)).toEqual(['01', pk33, pk65, '02']);
    const wu = solver(fromHex('5302abcd'));
    expect(wu.solutions.map(toHex)).toEqual(['03', 'abcd']);
  });
});

describe('InferDescriptor without provider', () => {
  const pk33 = '03ceb19276fcfb515e672c7455d60d81189d4608f7dc239a692779995d1436cc54';
  it('pk, multi, raw, rawtr, addr', () => {
    const d = (h: string): string => inferDescriptor(fromHex(h), REGTEST).split('#')[0]!;
    expect(d(`21${pk33}ac`)).toBe(`pk(${pk33})`);
    expect(d(`5121${pk33}51ae`)).toBe(`multi(1,${pk33})`);
    expect(d(`41${'06' + '22'.repeat(64)}ac`)).toBe(`raw(41${'06' + '22'.repeat(64)}ac)`);
    expect(d('6a02beef')).toBe('raw(6a02beef)');
    expect(d('51024e73')).toBe('addr(bcrt1pfeesnyr2tx)');
    // x = 0 is not on the curve: no rawtr, plain address
    expect(d('5120' + '00'.repeat(32))).toMatch(/^addr\(bcrt1p/);
    expect(d('5120' + 'ff'.repeat(32))).toMatch(/^addr\(bcrt1p/);
  });
});

describe('descriptor checksum', () => {
  it('fast checksum equals descriptor-checksum.ts', async () => {
    const { fastDescriptorChecksum } = await import('../../shared/bitcoin/infer');
    const { descriptorChecksum } = await import('../../shared/bitcoin/descriptor-checksum');
    const samples = [
      '',
      'raw(6a02beef)',
      "pkh([ac9d42e0/44'/1'/0']tpubDCzqCp2HLNSCMLhJY36gJHaNMHo5ApjBE4ry2sUo2rP3yQND5qPiSwUzaGcXYjNiFLmwwPemJdZ2hoNtgz6jYqs7ee45djc8d4ECmuHgQVS/0/*)",
      'addr(bcrt1px3wvuhjectwm5uewkvu7kn2nq4wew7934cz94zx5uv4qrergys4qmljwmx)',
      'a~b"c\\d e`#ZZ',
      'bad\u00e9',
    ];
    for (const s of samples) expect(fastDescriptorChecksum(s), s).toBe(descriptorChecksum(s));
  });
});

describe('bulk', () => {
  it('ScriptToUniv types 4,000 distinct scriptPubKeys of four kinds', () => {
    const scripts: Uint8Array[] = [];
    for (let i = 0; i < 1000; i++) {
      const r = new Uint8Array(32);
      for (let j = 0; j < 32; j++) r[j] = (i * 7 + j * 13 + (i >> 3)) & 0xff;
      scripts.push(Uint8Array.of(0x51, 0x20, ...r));
      scripts.push(Uint8Array.of(0x00, 0x14, ...r.subarray(0, 20)));
      scripts.push(Uint8Array.of(0x76, 0xa9, 0x14, ...r.subarray(0, 20), 0x88, 0xac));
      scripts.push(Uint8Array.of(0xa9, 0x14, ...r.subarray(0, 20), 0x87));
    }
    // Speed is measured by `npm run bench` (psbt group), not asserted here; this checks the bulk path.
    const types = scripts.map((s) => scriptToUniv(s, { includeHex: true, includeAddress: true, network: REGTEST }).type);
    const cycle = ['witness_v1_taproot', 'witness_v0_keyhash', 'pubkeyhash', 'scripthash'];
    expect(types).toEqual(scripts.map((_, i) => cycle[i % 4]));
  });
});
