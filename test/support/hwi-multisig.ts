/**
 * The test HWI program's `displayaddress --desc` for a multisig (test/support only: it stands in for the
 * devices, which cannot exist here): what HWI 3.2.0 asks of the descriptor per device type before the
 * device shows anything (hwilib/commands.py 461-477 hands the parsed multi/sortedmulti to the device's
 * display_multisig_address):
 * - ledger (hwilib/devices/ledger.py 451-474): every key an xpub with its origin and the suffix
 *   /0/<index> or /1/<index>, the same on every key, origins of at most 4 steps; the xpubs, the threshold
 *   and sortedmulti-or-multi make the wallet policy the Ledger registers. A device with `registered`
 *   policies (the wallet the person registered on it) refuses any other policy — `multi` for a
 *   sortedmulti wallet, or the same keys in another order for a multi one;
 * - bitbox02 (bitbox02.py 526-549): sortedmulti only, one suffix, xpubs with origins, wsh or sh(wsh);
 * - coldcard (coldcard.py 284-285): sortedmulti only;
 * - jade (jade.py 419-424): xpubs with origins and a suffix;
 * - trezor (trezor.py 706-718): xpubs or plain keys.
 */

export class MultisigRefusal extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

// hwilib/errors.py
const BAD_ARGUMENT = -7;
const UNKNOWN_ERROR = -13;
const INVALID_POLICY = -19;

interface MsKey {
  fingerprint: string;
  /** The origin's steps, hardened written h. */
  origin: string[];
  key: string;
  /** What follows the key (`/0/5`, `/<0;1>/*`), '' for none. */
  suffix: string;
  xpub: boolean;
}

export interface Multisig {
  wrapper: 'sh' | 'wsh' | 'sh-wsh';
  sorted: boolean;
  threshold: number;
  keys: MsKey[];
}

const SHAPE = /^(sh\(wsh\(|wsh\(|sh\()(sortedmulti|multi)\((\d+),(.*?)\)\)*(?:#.*)?$/;

/** The multi/sortedmulti inside sh(), wsh() or sh(wsh()), as HWI's descriptor.py splits it; null for another descriptor. */
export function readMultisig(desc: string): Multisig | null {
  const m = SHAPE.exec(desc.trim());
  if (!m) return null;
  const keys = m[4]!.split(',').map((text): MsKey => {
    const k = /^(?:\[([0-9a-fA-F]{8})((?:\/\d+['hH]?)*)\])?([0-9a-zA-Z]+)(.*)$/.exec(text);
    if (!k) throw new MultisigRefusal(`Invalid key expression in descriptor: ${text}`, BAD_ARGUMENT);
    const origin = (k[2] ?? '').split('/').filter(Boolean).map((s) => s.replace(/['H]$/, 'h'));
    return { fingerprint: (k[1] ?? '').toLowerCase(), origin, key: k[3]!, suffix: k[4]!, xpub: !/^[0-9a-fA-F]+$/.test(k[3]!) };
  });
  const wrapper = m[1] === 'sh(wsh(' ? 'sh-wsh' : m[1] === 'wsh(' ? 'wsh' : 'sh';
  return { wrapper, sorted: m[2] === 'sortedmulti', threshold: Number(m[3]), keys };
}

/** The wallet policy a Ledger builds (ledger.py 470-473): script type, threshold, sorted, `[origin]xpub` in order (sortedmulti: sorted, as descriptor.py sorts its keys). */
function policyOf(ms: Multisig): string {
  const infos = ms.keys.map((k) => `[${k.fingerprint}/${k.origin.join('/')}]${k.key}`);
  return JSON.stringify([ms.wrapper, ms.threshold, ms.sorted, ms.sorted ? infos.sort() : infos]);
}

function ledgerChecks(ms: Multisig, registered: readonly string[] | undefined): void {
  const valid = (k: MsKey) => k.xpub && /^\/[01]\/\d+$/.test(k.suffix) && Number(k.suffix.split('/')[2]) <= 0x7fffffff;
  if (!ms.keys.every(valid)) throw new MultisigRefusal('Ledger Bitcoin app requires derivation paths ending with /0/* or /1/* for multisig', BAD_ARGUMENT);
  if (!ms.keys.every((k) => k.suffix === ms.keys[0]!.suffix)) throw new MultisigRefusal('Ledger Bitcoin app requires all derivation paths to end with /0/*, or all with /1/* for multisig', BAD_ARGUMENT);
  if (ms.keys.some((k) => k.origin.length > 4)) throw new MultisigRefusal('Ledger Bitcoin app requires extended keys with derivation length at most 4', BAD_ARGUMENT);
  if (registered === undefined) return;
  const mine = policyOf(ms);
  const known = registered.map((r) => readMultisig(r)).filter((r): r is Multisig => r !== null);
  if (!known.some((r) => policyOf(r) === mine)) {
    const kind = ms.sorted ? 'sortedmulti' : 'multi';
    throw new MultisigRefusal(`This ${ms.threshold}-of-${ms.keys.length} ${kind} policy is not the wallet registered on this Ledger (${known.map((r) => `${r.threshold}-of-${r.keys.length} ${r.sorted ? 'sortedmulti' : 'multi'}`).join(', ') || 'none'})`, INVALID_POLICY);
  }
}

/** HWI 3.2.0's checks of a multisig descriptor for the device `type`; throws what HWI answers. */
export function checkMultisigFor(type: string, ms: Multisig, registered?: readonly string[]): void {
  switch (type) {
    case 'ledger':
      return ledgerChecks(ms, registered);
    case 'bitbox02':
      if (!ms.sorted) throw new MultisigRefusal('BitBox02 only supports sortedmulti descriptors', BAD_ARGUMENT);
      if (new Set(ms.keys.map((k) => k.suffix)).size !== 1) throw new MultisigRefusal('All multisig path suffixes must be the same', BAD_ARGUMENT);
      if (ms.keys.some((k) => !k.xpub || !k.fingerprint)) throw new MultisigRefusal('AssertionError: assert pk.extkey and pk.origin', UNKNOWN_ERROR);
      if (ms.wrapper === 'sh') throw new MultisigRefusal('BitBox02 currently only supports the following multisig script types: P2WSH, P2WSH_P2SH', BAD_ARGUMENT);
      return;
    case 'coldcard':
      if (!ms.sorted) throw new MultisigRefusal('Coldcards only allow sortedmulti descriptors', BAD_ARGUMENT);
      return;
    case 'jade':
      if (ms.keys.some((k) => !k.xpub)) throw new MultisigRefusal('Blockstream Jade can only generate addresses for multisigs with full extended keys', BAD_ARGUMENT);
      if (ms.keys.some((k) => !k.fingerprint)) throw new MultisigRefusal('Blockstream Jade can only generate addresses for multisigs with key origin information', BAD_ARGUMENT);
      if (ms.keys.some((k) => k.suffix === '')) throw new MultisigRefusal('Blockstream Jade can only generate addresses for multisigs with key derivation paths', BAD_ARGUMENT);
      return;
    default:
      return;
  }
}
