// What went wrong with the signer program or the device, in words a person can act on. HWI answers a
// device error as {"error": …, "code": …} with hwilib/errors.py's codes (exit code 0); the program itself
// can also be missing, hang past its deadline, be cancelled, print too much, print no JSON, or die.
import { AppError } from '../../../shared/errors';

export type SignerFailure =
  | 'missing-program'
  | 'not-executable'
  | 'timeout'
  | 'canceled'
  | 'too-big'
  | 'garbage'
  | 'crashed'
  | 'program-args'
  | 'no-device'
  | 'wrong-fingerprint'
  | 'needs-pin'
  | 'needs-passphrase'
  | 'declined'
  | 'unsupported'
  | 'wrong-key'
  | 'wrong-descriptor'
  | 'invalid-tx'
  | 'busy'
  | 'not-initialized'
  | 'device-error'
  | 'changed-tx'
  | 'bad-signature'
  | 'no-signature'
  | 'not-a-key';

// hwilib/errors.py
export const HWI = {
  NO_DEVICE_TYPE: -1,
  MISSING_ARGUMENTS: -2,
  DEVICE_CONN_ERROR: -3,
  UNKNOWN_DEVICE_TYPE: -4,
  INVALID_TX: -5,
  NO_PASSWORD: -6,
  BAD_ARGUMENT: -7,
  NOT_IMPLEMENTED: -8,
  UNAVAILABLE_ACTION: -9,
  DEVICE_NOT_READY: -12,
  UNKNOWN_ERROR: -13,
  ACTION_CANCELED: -14,
  DEVICE_BUSY: -15,
  DEVICE_NOT_INITIALIZED: -18,
  INVALID_POLICY: -19,
} as const;

export const INSTALL_HWI =
  'Install HWI, Bitcoin Core’s hardware wallet interface (`pip install hwi`, or the release binary of bitcoin-core/HWI on GitHub, checked against its published hash), so that `hwi` is on your PATH — or choose the program’s file on the Signers page.';

/** A failure of the signer program or the device; `detail.signer` names which (tests and the UI read it). */
export class SignerError extends AppError {
  constructor(
    readonly failure: SignerFailure,
    message: string,
    extra: Record<string, string | number | boolean | null> = {},
  ) {
    super(failure === 'canceled' ? 'cancelled' : 'input.invalid', message, { signer: failure, ...extra });
  }
}

const short = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The meaning of HWI's {"error", "code"}: which failure, and what to do. */
export function fromHwiError(code: number, text: string, device: string): SignerError {
  const said = { hwiCode: code, hwiMessage: short(text) };
  switch (code) {
    case HWI.DEVICE_CONN_ERROR:
    case HWI.UNKNOWN_DEVICE_TYPE:
      return new SignerError('no-device', `${device} is not connected (or not unlocked): connect it, unlock it, and try again. The signer program said: “${short(text, 160)}”.`, said);
    case HWI.NO_PASSWORD:
      return new SignerError('needs-passphrase', `${device} needs its passphrase before it can be used: enter it on the device (or unlock it in its own app), then try again.`, said);
    case HWI.DEVICE_NOT_READY:
      return /lock|pin/i.test(text)
        ? new SignerError('needs-pin', `${device} is locked: enter its PIN on the device, then try again.`, said)
        : new SignerError('busy', `${device} is not ready: ${short(text, 160)}. Open the Bitcoin app on it, then try again.`, said);
    case HWI.ACTION_CANCELED:
      return new SignerError('declined', `Declined on ${device}: nothing was signed or shown, and the draft is as it was.`, said);
    case HWI.NOT_IMPLEMENTED:
    case HWI.UNAVAILABLE_ACTION:
    case HWI.INVALID_POLICY:
      return new SignerError('unsupported', `${device} cannot do this: ${short(text, 200)}. Its model may not support this script type (taproot, or this multisig without a registered policy).`, said);
    case HWI.BAD_ARGUMENT:
      if (/fingerprint does not match/i.test(text)) return new SignerError('wrong-fingerprint', `${device} is another device than the one this wallet’s keys come from (its fingerprint does not match the descriptor’s).`, said);
      if (/key in descriptor does not match/i.test(text)) return new SignerError('wrong-key', `${device} does not hold the key this address is made from: this address is not the device’s.`, said);
      return new SignerError('device-error', `${device} refused the request: ${short(text, 200)}.`, said);
    case HWI.INVALID_TX:
      return new SignerError('invalid-tx', `${device} could not read the transaction: ${short(text, 200)}.`, said);
    case HWI.DEVICE_BUSY:
      return new SignerError('busy', `${device} is busy with another request: finish or cancel it on the device, then try again.`, said);
    case HWI.DEVICE_NOT_INITIALIZED:
      return new SignerError('not-initialized', `${device} has no wallet yet (not initialized): set it up with its maker’s app first.`, said);
    case HWI.NO_DEVICE_TYPE:
    case HWI.MISSING_ARGUMENTS:
      return new SignerError('program-args', `The signer program refused Spyglass’s arguments (${short(text, 160)}): is it HWI 3.x, or a program speaking its command line?`, said);
    default:
      return new SignerError('device-error', `${device} reported an error: ${short(text, 200)}.`, said);
  }
}
