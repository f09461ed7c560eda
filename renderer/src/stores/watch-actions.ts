// The Balances rows' actions (label, hide, remove, add, CSV export), part of the watch store
// (stores/watch.ts returns them as its own): each call's failure lands in the store's actionError
// for a toast, and a changed row is replaced by a new prepared one (the rows are a shallow ref).
import type { Ref, ShallowRef } from 'vue';
import type { AddAddressesResult, BalanceRowView } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/errors';
import * as api from '../api/spyglass';
import type { Unit } from '../lib/format';
import { prepareRow, type BalanceRow } from './balance-row';
import type { PagedView } from './balance-pages';

export interface RowActionState {
  rows: ShallowRef<BalanceRow[]>;
  /** A large wallet's pages (null: every row is in `rows`). */
  paged: ShallowRef<PagedView | null>;
  unit: Ref<Unit>;
  actionError: Ref<IpcError | null>;
  /** Reloads the overview (after addresses were added). */
  load: () => Promise<boolean>;
}

export function useRowActions({ rows, paged, unit, actionError, load }: RowActionState) {
  /**
   * Shows the changed row at once. A large wallet's pages are then asked again (the overview, with its
   * new version): main sorts and filters, and the totals and counts may have changed with the row.
   */
  function replaceRow(address: string, change: (r: BalanceRow) => BalanceRowView): void {
    const p = paged.value;
    if (p !== null) {
      const pages = new Map<number, BalanceRow[]>();
      for (const [n, list] of p.pages) pages.set(n, list.map((r) => (r.address === address ? prepareRow(change(r)) : r)));
      paged.value = { ...p, pages };
      void load();
      return;
    }
    rows.value = rows.value.map((r) => (r.address === address ? prepareRow(change(r)) : r));
  }

  async function run(action: () => Promise<unknown>): Promise<boolean> {
    actionError.value = null;
    try {
      await action();
      return true;
    } catch (e) {
      actionError.value = api.asIpcError(e);
      return false;
    }
  }

  /** Sets (or, when empty, removes) the local label of an address. */
  function setLabel(address: string, text: string): Promise<boolean> {
    const label = text.trim();
    return run(async () => {
      await api.setLabel({ type: 'addr', ref: address, label });
      replaceRow(address, (r) => ({ ...r.view(), label: label === '' ? null : label }));
    });
  }

  function hide(address: string, hidden: boolean): Promise<boolean> {
    return run(async () => {
      const reply = await api.watchHide(address, hidden);
      replaceRow(address, (r) => ({ ...r.view(), hidden: reply.hidden }));
    });
  }

  function remove(address: string): Promise<boolean> {
    return run(async () => {
      const reply = await api.watchRemove(address);
      if (!reply.removed) return;
      if (paged.value !== null) void load();
      else rows.value = rows.value.filter((r) => r.address !== address);
    });
  }

  /** Adds addresses; null when the call failed (see actionError). Nothing is added when any line is invalid. */
  async function add(text: string): Promise<AddAddressesResult | null> {
    actionError.value = null;
    try {
      const result = await api.watchAdd(text);
      if (result.errors.length === 0 && result.added > 0) await load();
      return result;
    } catch (e) {
      actionError.value = api.asIpcError(e);
      return null;
    }
  }

  async function exportCsv(includeHidden: boolean): Promise<{ text: string; rows: number } | null> {
    actionError.value = null;
    try {
      return await api.exportCsv({ unit: unit.value, includeHidden });
    } catch (e) {
      actionError.value = api.asIpcError(e);
      return null;
    }
  }

  return { setLabel, hide, remove, add, exportCsv };
}
