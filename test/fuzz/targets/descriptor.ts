/**
 * Descriptors: one pasted into the import box (importDescriptors: Core's parser, then the wallet
 * rules; typed WalletImportError), and Core's getdescriptorinfo on the same text (the devnet's and
 * the review's parser; typed DescriptorRpcError -5 with Core's message).
 */
import { DescriptorRpcError, getDescriptorInfo, parseDescriptor } from '../../../shared/bitcoin/descriptor';
import { REGTEST } from '../../../shared/bitcoin/networks';
import { LIMITS } from '../../../shared/limits';
import { WalletImportError, importDescriptors } from '../../../shared/wallet/index';
import { COSIGNERS, NODE } from '../../wallet/vectors';
import { recordedDescriptors } from '../corpus';
import { mutateText } from '../text-mutate';
import type { FuzzTarget } from '../target';

const K = COSIGNERS.map((c) => `[${c.fingerprint}/48h/1h/0h/2h]${c.p2wsh}`);
let seedCache: string[] | null = null;

function seeds(): string[] {
  if (seedCache) return seedCache;
  seedCache = [
    ...recordedDescriptors(),
    ...Object.values(NODE).flatMap((n) => [n.external, n.internal]),
    `wsh(sortedmulti(2,${K[0]}/<0;1>/*,${K[1]}/0/*,${K[2]}/0/*))`,
    `tr(${K[0]}/<0;1>/*,{pk(${K[1]}/0/*),pk(${K[2]}/1/*)})`,
    `sh(wsh(multi_a(1,${K[0]}/0/*,${K[1]}/0/*)))`,
    `wsh(or_d(pk(${K[0]}/0/*),and_v(v:pkh(${K[1]}/0/*),older(144))))`,
    'addr(bcrt1qxkzy87q9j58txedtpud7zg74y6ak4n3adqnk2nsgkeq5qptg44cqtr6z04)',
    'raw(0014aabbccddeeff00112233445566778899aabbccdd)',
    'combo(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)',
  ];
  return seedCache;
}

const DICTIONARY = [
  'wsh(', 'sh(', 'wpkh(', 'pkh(', 'pk(', 'tr(', 'rawtr(', 'combo(', 'addr(', 'raw(', 'multi(', 'sortedmulti(', 'multi_a(', 'sortedmulti_a(', 'and_v(', 'or_d(', 'v:', 'older(', 'after(', 'thresh(',
  ')', '(', ',', '{', '}', '/', '/*', "/*'", '/*h', '/<0;1>/*', '/<0;1;2>/*', '/<0;0>/*', '/<1;0>', '<', ';', '>', '[', ']', "'", 'h', '#', '#qmem49yk', '0', '1', '16', '20', '999', '2147483648', ...K,
];

const target: FuzzTarget = {
  name: 'descriptor',
  capBytes: LIMITS.descriptor.chars,
  seeds,
  mutate: (input, rng) => mutateText(input, rng, { dictionary: DICTIONARY, seeds: seeds(), capBytes: LIMITS.descriptor.chars }),
  run(input) {
    try {
      importDescriptors([{ text: input, field: 'descriptor' }], REGTEST);
    } catch (e) {
      if (!(e instanceof WalletImportError)) throw e;
    }
    if (input.length > LIMITS.descriptor.chars) return;
    // Core's parser itself: its refusals are plain Errors with Core's message (getdescriptorinfo
    // turns any throw into -5, which would hide a TypeError: the parser is called first alone).
    try {
      parseDescriptor(input, REGTEST);
    } catch (e) {
      if (e instanceof Error && Object.getPrototypeOf(e) === Error.prototype) throw new DescriptorRpcError(-5, e.message);
      throw e;
    }
    getDescriptorInfo(input, REGTEST);
  },
  typed: (e) => e instanceof DescriptorRpcError && e.code === -5,
};

export default target;
