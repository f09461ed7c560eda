/** The wallet's transactions as an early call: only when the app opens on Transactions; a failed early reply is asked again. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setApi } from '../../renderer/src/api/client';
import { dropEarlyCalls, opensOnTransactions, startEarlyCalls } from '../../renderer/src/api/early';
import * as api from '../../renderer/src/api/spyglass';
import { fakeApi, type FakeApi } from './fake-api';

let fake: FakeApi;
const view = (wallet: string) => ({ wallet, rows: [], balance: { confirmedSats: '0', pendingSats: '0', immatureSats: '0' } });

beforeEach(() => {
  fake = fakeApi();
  setApi(fake);
  fake.handle('connection:status', { state: 'none' });
  fake.handle('profiles:list', { profiles: [], activeId: null });
  fake.handle('keychain:status', { available: true, reason: null, backend: 'test' });
});
afterEach(() => {
  dropEarlyCalls();
  setApi(null);
});

const count = (channel: string): number => fake.calls.filter((c) => c.channel === channel).length;

describe('early wallet:history', () => {
  it('only for #/transactions', () => {
    expect(['#/transactions', '#/transactions?x=1', '/transactions'].map(opensOnTransactions)).toEqual([true, true, true]);
    expect(['', '#/', '#/balances', '#/tx/ab', '#/receive'].map(opensOnTransactions)).toEqual([false, false, false, false, false]);
    startEarlyCalls('#/balances');
    expect(count('wallet:history')).toBe(0);
  });

  it('the early reply is taken once; later calls ask again', async () => {
    fake.handle('wallet:history', view('early'));
    startEarlyCalls('#/transactions');
    expect(fake.calls.map((c) => c.channel)).toEqual(['connection:status', 'profiles:list', 'keychain:status', 'wallet:history']);
    fake.handle('wallet:history', view('later'));
    expect((await api.walletHistory()).wallet).toBe('early');
    expect((await api.walletHistory()).wallet).toBe('later');
    expect(count('wallet:history')).toBe(2);
  });

  it('a failed early reply (sent before the connection was up) is asked again', async () => {
    fake.handle('wallet:history', () => ({ ok: false, error: { code: 'credentials.missing', message: 'Connect to the node first' } }));
    startEarlyCalls('#/transactions');
    fake.handle('wallet:history', view('connected'));
    expect((await api.walletHistory()).wallet).toBe('connected');
    expect(count('wallet:history')).toBe(2);
  });
});
