/**
 * Failures of the spend core. Each has a stable `code` (the compose screen picks the field and the
 * remedy from it) and a message a person can act on; `detail` carries the numbers the message
 * names (satoshis as decimal strings, never floats), for the screen to format in the user's unit.
 */

export const SpendErrorCodes = [
  'spend.fee_rate_invalid', // not a number of sat/vB, or more than 3 decimals
  'spend.fee_rate_zero', // 0 sat/vB (or negative)
  'spend.fee_rate_absurd', // above the maximum fee rate (Core's maxfeerate, 0.10 BTC/kvB by default)
  'spend.fee_absurd', // the fee itself above the maximum fee (Core's -maxtxfee, 0.1 BTC by default)
  'spend.no_recipients', // nothing to pay
  'spend.amount_invalid', // a recipient amount of 0, negative or above 21 million BTC
  'spend.amount_dust', // a recipient amount below the dust threshold of its output
  'spend.send_max_twice', // more than one recipient marked "send max"
  'spend.insufficient_funds', // the coins cannot pay the recipients and the fee
  'spend.no_spendable_coins', // every coin is frozen, immature or excluded
  'spend.coin_not_found', // coin control names a coin that is not in the wallet's list
  'spend.coin_frozen', // coin control names a frozen coin
  'spend.coin_immature', // coin control names an immature coinbase output
  'spend.coin_duplicate', // coin control names the same coin twice
  'spend.too_large', // the transaction would exceed the standard weight (400,000 WU)
  'spend.unsupported_input', // a coin whose spending size cannot be known (unknown script type)
  'spend.invalid_input_kind', // an input kind with impossible parameters (m > n, n > 20…)
] as const;

export type SpendErrorCode = (typeof SpendErrorCodes)[number];

export type SpendErrorDetail = Record<string, string | number | boolean | null>;

export class SpendError extends Error {
  readonly code: SpendErrorCode;
  readonly detail: SpendErrorDetail | undefined;

  constructor(code: SpendErrorCode, message: string, detail?: SpendErrorDetail) {
    super(message);
    this.name = 'SpendError';
    this.code = code;
    this.detail = detail;
  }
}
