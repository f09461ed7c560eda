// What you review is what you sign (#28): each Send preview is kept here as a plan — the composed
// transaction (coins in input order, outputs in order with the change at its place, fee, locktime)
// for exactly the form it was made from, its random choices drawn once. `send:create` with the plan
// builds that transaction and no other: it checks the coins are still the wallet's unspent ones and
// that the node hands out the change address the preview showed, and refuses — naming what changed —
// rather than drawing a new selection.
import { randomBytes } from 'node:crypto';
import { formatBtc } from '../../../shared/amounts';
import { hexReversed, serializeTx, sha256d } from '../../../shared/bitcoin/tx';
import type { InputKind } from '../../../shared/bitcoin/spend/size';
import type { Composed } from '../../../shared/send/compose';
import { unsignedTx, type UnsignedTxSpec } from '../../../shared/send/create-psbt';
import type { FieldError, ParsedRecipient } from '../../../shared/send/recipients';
import type { ComposeWarning } from '../../../shared/send/warnings';
import type { SendForm } from '../../../shared/ipc/send';
import { SendFormSchema } from '../../../shared/ipc/send';
import type { FactsAt } from './core';
import type { WalletCoin } from './coins';

export type Change = { script: Uint8Array; kind: InputKind; address: string; index: number | null };

export interface Prepared {
  f: FactsAt;
  recipients: ParsedRecipient[];
  composed: Composed;
  change: Change;
  warnings: ComposeWarning[];
  locktime: number;
  /** The random choices made (selection draw, input order, change position). */
  seed: number;
}

export interface Plan {
  id: string;
  /** The form it was made from (its seed included, its name left out: the name builds nothing). */
  key: string;
  profileId: string;
  wallet: string;
  prepared: Prepared;
  unsignedTxid: string;
}

/** How many previews are kept (each keystroke makes one; create uses the last). */
const KEPT = 64;

export function txidOf(spec: UnsignedTxSpec): string {
  return hexReversed(sha256d(serializeTx(unsignedTx(spec), { witness: false })));
}

/** The form as a plan is keyed: read strictly (defaults filled), without the draft's name. */
export function formKey(form: SendForm): string {
  const { name: _name, ...rest } = SendFormSchema.parse(form);
  return JSON.stringify(rest);
}

export class PlanStore {
  readonly #plans = new Map<string, Plan>();

  keep(form: SendForm, prepared: Prepared): Plan {
    const plan: Plan = {
      id: `p_${randomBytes(12).toString('base64url')}`,
      key: formKey(form),
      profileId: prepared.f.profileId,
      wallet: prepared.f.wallet,
      prepared,
      unsignedTxid: txidOf(prepared.composed.spec),
    };
    this.#plans.set(plan.id, plan);
    while (this.#plans.size > KEPT) this.#plans.delete(this.#plans.keys().next().value!);
    return plan;
  }

  get(id: string): Plan | null {
    return this.#plans.get(id) ?? null;
  }

  drop(id: string): void {
    this.#plans.delete(id);
  }
}

const again = 'The summary now shows a new selection: review it, then create again.';

/**
 * Why `plan` cannot be built for `form` from the wallet's coins now (field errors), or null: the
 * form is the one previewed, for the same wallet, and every coin it spends is still unspent, with
 * the same amount, and not frozen.
 */
export function planProblems(plan: Plan, form: SendForm, now: { profileId: string; wallet: string; coins: readonly WalletCoin[] }): FieldError[] | null {
  if (plan.profileId !== now.profileId || plan.wallet !== now.wallet) {
    return [{ row: -1, field: 'coins', message: `This summary was made for the wallet "${plan.wallet}", and Send now spends from "${now.wallet}". ${again}` }];
  }
  if (formKey(form) !== plan.key) {
    return [{ row: -1, field: 'recipients', message: 'The form changed after the summary was made: nothing was built. Create from the summary shown now.' }];
  }
  const coins = new Map(now.coins.map((c) => [c.view.outpoint, c]));
  const errors: FieldError[] = [];
  for (const c of plan.prepared.composed.inputs) {
    const op = `${c.txid}:${c.vout}`;
    const w = coins.get(op);
    if (!w) errors.push({ row: -1, field: 'coins', message: `The coin ${op} (${formatBtc(c.value)} BTC) the summary spends is no longer among the wallet's unspent coins (spent since): nothing was built. ${again}` });
    else if (BigInt(w.view.amountSats) !== c.value) errors.push({ row: -1, field: 'coins', message: `The coin ${op} now holds ${formatBtc(BigInt(w.view.amountSats))} BTC, not the ${formatBtc(c.value)} BTC of the summary: nothing was built. ${again}` });
    else if (w.view.frozen) errors.push({ row: -1, field: 'coins', message: `The coin ${op} the summary spends was frozen since: nothing was built. ${again}` });
  }
  return errors.length ? errors : null;
}

/** The change address the node handed out is not the one the summary showed. */
export function changeMoved(previewed: string, handedOut: string): FieldError[] {
  return [
    {
      row: -1,
      field: 'change',
      message: `Your node handed out the change address ${handedOut}, not ${previewed} that the summary shows (another program took an address meanwhile): nothing was built. ${again}`,
    },
  ];
}
