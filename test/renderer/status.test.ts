import { describe, expect, it } from 'vitest';
import type { ConnectionReport, ConnectionState } from '../../shared/ipc/contract';
import { connectionStatus, sinceText } from '../../renderer/src/lib/status';

const now = new Date(2026, 10, 25, 14, 30);
const at = (h: number, m: number, day = 25): string => new Date(2026, 10, day, h, m).toISOString();

function report(over: { blocks?: number; headers?: number; ibd?: boolean; progress?: number; index?: number; behind?: boolean } = {}): ConnectionReport {
  const blocks = over.blocks ?? 200;
  return {
    node: { version: 319900, subversion: '/Satoshi:31.99.0/', chain: 'regtest', blocks, headers: over.headers ?? blocks, bestBlockHash: 'ab', initialBlockDownload: over.ibd ?? false, verificationProgress: over.progress ?? 1, wallet: 'watch', walletKind: 'watch-only', walletFrom: 'profile', walletsLoaded: ['watch'] },
    index: { source: 'index', height: over.index ?? blocks, bestBlockHash: 'ab', genesisHash: 'cd' },
    network: 'regtest',
    warnings: over.behind ? [{ code: 'index-behind', message: 'The index is behind.' }] : [],
    checkedAt: at(14, 0),
  };
}
const connected = (r: ConnectionReport): ConnectionState => ({ state: 'connected', profileId: 'p', report: r });
const failed = (code: string, since: string, detail: Record<string, string> = {}): ConnectionState => ({ state: 'failed', profileId: 'p', error: { code: code as never, message: `the ${code} message`, detail }, since });

describe('the connection status in words', () => {
  it('connected, syncing with its percentage, index behind by N blocks', () => {
    expect(connectionStatus(connected(report()), now)).toMatchObject({ kind: 'connected', tone: 'ok', label: 'Connected' });
    expect(connectionStatus(connected(report({ ibd: true, progress: 0.4567, headers: 900 })), now)).toMatchObject({ kind: 'syncing', tone: 'warn', label: 'Syncing 45.6 %' });
    // A real network in initial block download is syncing; a stale regtest chain is not (nothing to fetch).
    const mainIbd = report({ ibd: true, progress: 0.5 });
    expect(connectionStatus(connected({ ...mainIbd, node: { ...mainIbd.node, chain: 'main' } }), now).kind).toBe('syncing');
    expect(connectionStatus(connected(report({ ibd: true, progress: 0.009 })), now).kind).toBe('connected');
    expect(connectionStatus(connected(report({ headers: 205 })), now).kind).toBe('syncing');
    expect(connectionStatus(connected(report({ index: 197, behind: true })), now)).toMatchObject({ kind: 'index-behind', label: 'Index behind by 3 blocks' });
    expect(connectionStatus(connected(report({ index: 199, behind: true })), now).label).toBe('Index behind by 1 block');
    // Two blocks behind is no warning (connection.ts decides): still "Connected".
    expect(connectionStatus(connected(report({ index: 198 })), now).kind).toBe('connected');
  });

  it('down since when it began; wrong credentials; the index on another chain', () => {
    expect(connectionStatus(failed('net.refused', at(12, 3), { peer: 'node' }), now)).toMatchObject({ kind: 'node-down', tone: 'bad', label: `Node down since ${sinceText(at(12, 3), now)}`, detail: 'the net.refused message' });
    expect(connectionStatus(failed('rpc.warming_up', at(12, 3)), now).kind).toBe('node-down');
    expect(connectionStatus(failed('net.timeout', at(9, 0, 23), { peer: 'index' }), now)).toMatchObject({ kind: 'index-down', label: `Index down since ${sinceText(at(9, 0, 23), now)}` });
    expect(connectionStatus(failed('index.http', at(12, 3)), now).kind).toBe('index-down');
    expect(connectionStatus(failed('rpc.unauthorized', at(12, 3)), now)).toMatchObject({ kind: 'wrong-credentials', label: 'Wrong credentials' });
    expect(connectionStatus(failed('chain.mismatch', at(12, 3)), now).label).toBe('Index on another chain');
    expect(connectionStatus(failed('index.forbidden', at(12, 3)), now).kind).toBe('refused');
    expect(connectionStatus(failed('cookie.unreadable', at(12, 3)), now)).toMatchObject({ kind: 'failed', label: 'Not connected' });
  });

  it('"since" is the time today, with the date on another day', () => {
    expect(sinceText(at(12, 3), now)).not.toMatch(/Nov/);
    expect(sinceText(at(12, 3, 23), now)).toMatch(/Nov 23|23 Nov/);
    expect(sinceText('garbage', now)).toBe('garbage');
    // Local time, 24-hour clock, no Intl (its first use in a page is slow): exact text.
    expect(sinceText(at(9, 5), now)).toBe('09:05');
    expect(sinceText(at(21, 5, 3), now)).toBe('Nov 3, 21:05');
  });

  it('the other states', () => {
    expect(connectionStatus(null).label).toBe('No profile');
    expect(connectionStatus({ state: 'none' }).kind).toBe('none');
    expect(connectionStatus({ state: 'connecting', profileId: 'p' }).tone).toBe('busy');
    expect(connectionStatus({ state: 'needs-password', profileId: 'p' }).label).toBe('Needs password');
  });
});
