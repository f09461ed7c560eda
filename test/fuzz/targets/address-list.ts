/**
 * "Add addresses" (`watch:add`): parseAddressList answers every problem as a listed error, never a
 * throw. Checked too: every address it keeps is valid for the chain, and reads back unchanged.
 */
import { decodeDestination, encodeDestination } from '../../../shared/bitcoin/address';
import { MAINNET, REGTEST } from '../../../shared/bitcoin/networks';
import { LIMITS } from '../../../shared/limits';
import { parseAddressList } from '../../../shared/watchlist';
import { recordedAddresses } from '../corpus';
import { mutateText } from '../text-mutate';
import { InvariantError, type FuzzTarget } from '../target';

let seedCache: string[] | null = null;

function seeds(): string[] {
  if (seedCache) return seedCache;
  const a = recordedAddresses();
  const main = ['bc1qrgc6p3kylfztu06ysl752gwwuekhvtfh9vr7zg43jvu60mutamcsv948ej', '3GzMtFXahiu4TpGNGFc4bHMvAcvz5vVQrT', '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA'];
  seedCache = [
    a.slice(0, 12).join('\n'),
    a.slice(0, 6).map((x, i) => `${x} cold storage ${i}`).join('\n'),
    a.slice(0, 6).join(', '),
    `# my list\n${a.slice(6, 10).join(' ; ')}\n\n${a[0]} # trailing comment`,
    `address,label,balance\n${a.slice(0, 5).map((x, i) => `${x},"label, ${i}",0.1`).join('\n')}`,
    `Label;Address\r\nsavings;${a[1]}\r\n"quoted ""x""";${a[2]}`,
    `bitcoin:${a[0]}?amount=1&label=My%20label\nbitcoin:${a[1]}?label=%ZZ`,
    main.join('\n'),
    '#',
  ];
  return seedCache;
}

const DICTIONARY = ['bcrt1q', 'bcrt1p', 'bc1q', 'tb1q', '2N', 'm', 'n', '1', '3', ',', ';', '\t', '"', '""', '#', 'bitcoin:', '?label=', '&amount=', '%20', '%', 'address', 'label', '\n', '\r\n', ' ', '=', '+', '\uFEFF'];

const target: FuzzTarget = {
  name: 'address-list',
  capBytes: LIMITS.addressList.chars,
  seeds,
  mutate: (input, rng) => mutateText(input, rng, { dictionary: [...DICTIONARY, ...recordedAddresses().slice(0, 20), ...seeds()], seeds: seeds(), capBytes: LIMITS.addressList.chars }),
  run(input) {
    // The node's chain decides what is valid: regtest, and mainnet for the inputs of a usual size.
    for (const net of input.length <= 100_000 ? [REGTEST, MAINNET] : [REGTEST]) {
      const r = parseAddressList(input, net);
      const kept = new Set(r.addresses);
      for (const addr of r.addresses) {
        const d = decodeDestination(addr, net);
        if (!d.ok || encodeDestination(d.dest, net) !== addr) throw new InvariantError(`kept ${JSON.stringify(addr)}, which is not a canonical ${net.chain} address`);
      }
      for (const [addr, label] of r.labels) if (!kept.has(addr) || label === '') throw new InvariantError(`a label for ${addr} that is not kept, or empty`);
    }
  },
  typed: () => false,
};

export default target;
