/**
 * BIP329 label files (`labels:preview` / `labels:import`): parseBip329 answers every bad line as a
 * listed error, never a throw; the records it keeps write out (serializeBip329) and read back as
 * the same records, and merge with the store under every rule.
 */
import { mergeLabels, parseBip329, serializeBip329, type LabelRecord } from '../../../shared/bip329';
import { REGTEST } from '../../../shared/bitcoin/networks';
import { LIMITS } from '../../../shared/limits';
import { recordedAddresses, recordedStrings } from '../corpus';
import { mutateText } from '../text-mutate';
import { InvariantError, type FuzzTarget } from '../target';

let seedCache: string[] | null = null;

function seeds(): string[] {
  if (seedCache) return seedCache;
  const a = recordedAddresses();
  const txids = recordedStrings().filter((s) => /^[0-9a-f]{64}$/.test(s)).slice(0, 6);
  const lines = [
    ...a.slice(0, 4).map((x, i) => JSON.stringify({ type: 'addr', ref: x, label: `Address ${i}`, origin: "wpkh([d34db33f/84'/0'/0'])" })),
    ...txids.map((t, i) => JSON.stringify({ type: 'tx', ref: t, label: `Payment ${i} ☕` })),
    ...txids.slice(0, 3).map((t, i) => JSON.stringify({ type: 'output', ref: `${t}:${i}`, label: 'change', spendable: i % 2 === 0 })),
    JSON.stringify({ type: 'input', ref: `${txids[0]}:0`, label: 'spent' }),
    JSON.stringify({ type: 'xpub', ref: 'tpubDFS8humXq8S9CmyJjmUsbDcYAUoEZXd73TbS9SwfSLAr3G9Tjf4nEHV9P1ShtccvWeEr2DPEys7Tq15t6f4eEWV6GH2PZSDn4biSAbNCbpm', label: 'Cosigner' }),
    JSON.stringify({ type: 'pubkey', ref: '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', label: 'G' }),
  ];
  seedCache = [lines.join('\n'), lines.slice(0, 3).join('\r\n') + '\r\n', '\uFEFF' + lines[0], lines.slice(4, 9).join('\n\n'), '{"type":"addr","ref":"x"}\n{}\n[]\nnull'];
  return seedCache;
}

const DICTIONARY = ['{', '}', '"', ':', ',', '"type"', '"ref"', '"label"', '"origin"', '"spendable"', '"addr"', '"tx"', '"output"', '"input"', '"xpub"', '"pubkey"', 'true', 'false', 'null', '1e400', '-0', '\\u0000', '\\ud800', '\\"', ':0', ':4294967296', '\n', '\r\n', '\u2028', '[', ']'];

const same = (a: readonly LabelRecord[], b: readonly LabelRecord[]): boolean => serializeBip329(a) === serializeBip329(b);

const target: FuzzTarget = {
  name: 'labels',
  capBytes: LIMITS.labels.chars,
  seeds,
  mutate: (input, rng) => mutateText(input, rng, { dictionary: DICTIONARY, seeds: seeds(), capBytes: LIMITS.labels.chars }),
  run(input) {
    const r = parseBip329(input, { network: REGTEST });
    if (r.errors.length > 0) return;
    const text = serializeBip329(r.records);
    const again = parseBip329(text, { network: REGTEST });
    if (again.errors.length > 0 || !same(again.records, r.records)) throw new InvariantError(`the records read do not write out and read back the same: ${again.errors[0]?.message ?? 'different records'}`);
    for (const rule of ['replace', 'keep-existing', 'fill-empty'] as const) mergeLabels(r.records.slice(0, r.records.length >> 1), r.records, rule);
  },
  typed: () => false,
};

export default target;
