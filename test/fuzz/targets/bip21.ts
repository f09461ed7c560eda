/**
 * BIP21 payment requests (a clicked link, `npm run web -- bitcoin:…`, a pasted request in Send):
 * parseBip21 answers `{ok: false, field, error}`, never a throw; a request it accepts is written
 * back by formatBip21 (the Receive QR) and reads back with the same address, amount, label and message.
 */
import { formatBip21, parseBip21 } from '../../../shared/bip21';
import { LIMITS } from '../../../shared/limits';
import { recordedAddresses } from '../corpus';
import { mutateText } from '../text-mutate';
import { InvariantError, type FuzzTarget } from '../target';

let seedCache: string[] | null = null;

function seeds(): string[] {
  if (seedCache) return seedCache;
  const a = recordedAddresses();
  seedCache = [
    `bitcoin:${a[0]}`,
    `bitcoin:${a[1]}?amount=0.015&label=Luke-Jr&message=Donation%20for%20project%20xyz`,
    `BITCOIN:${a[2]!.toUpperCase()}?amount=20.3&label=Luke%20Jr`,
    `bitcoin:${a[3]}?somethingyoudontunderstand=50&somethingelsetoo=ABC&lightning=lnbc1`,
    `bitcoin:${a[4]}?req-somethingyoudontunderstand=50`,
    'bitcoin:bc1qrgc6p3kylfztu06ysl752gwwuekhvtfh9vr7zg43jvu60mutamcsv948ej?amount=21000000&pj=https://example.com/pj',
    `bitcoin:${a[5]}?amount=.00000001&label=&message=%E2%98%95`,
  ];
  return seedCache;
}

const DICTIONARY = ['bitcoin:', '?', '&', '=', 'amount=', 'label=', 'message=', 'req-', 'pj=', '%', '%2', '%20', '%E2%98%95', '%ZZ', '%C0%80', '.', '0.', '1e3', '-1', '21000000.00000001', '00000000001', '+', '#', ' '];

const target: FuzzTarget = {
  name: 'bip21',
  capBytes: LIMITS.bip21.chars,
  seeds,
  mutate: (input, rng) => mutateText(input, rng, { dictionary: [...DICTIONARY, ...recordedAddresses().slice(0, 10)], seeds: seeds(), capBytes: LIMITS.bip21.chars + 64 }),
  run(input) {
    const r = parseBip21(input);
    if (!r.ok) {
      if (typeof r.error !== 'string' || r.error === '') throw new InvariantError(`a refusal without a reason (field ${r.field})`);
      return;
    }
    const q = r.request;
    const again = parseBip21(formatBip21(q));
    if (!again.ok) throw new InvariantError(`an accepted request written back is refused: ${again.error}`);
    const p = again.request;
    if (p.address !== q.address || p.amountSats !== q.amountSats || (p.label ?? '') !== (q.label ?? '') || (p.message ?? '') !== (q.message ?? '')) {
      throw new InvariantError('an accepted request written back reads differently');
    }
  },
  typed: () => false,
};

export default target;
