/**
 * What the refresh bench's parent and its child processes share (bench/refresh.ts): the devnet's
 * credentials, the profile that points at it, memory and CPU readings of a process, and a plain
 * node:http request.
 */
import { request as httpRequest } from 'node:http';

export const RPC_USER = 'bench';
export const RPC_PASSWORD = 'bench';
export const WALLET = 'watch';

export const MB = 1024 * 1024;

export interface DevnetUrls {
  rpcUrl: string;
  indexUrl: string;
}

export interface MemoryReport {
  /** process.memoryUsage().rss after a forced gc (bytes). */
  rss: number;
  /** Peak resident set size of the process so far (getrusage maxrss, bytes). */
  peakRss: number;
  heapUsed: number;
}

export function memory(): MemoryReport {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, peakRss: process.resourceUsage().maxRSS * 1024, heapUsed: m.heapUsed };
}

/** CPU seconds (user + system) of this process since `from`. */
export function cpuSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1e6;
}

export interface OverviewResult {
  ms: number;
  rows: number;
  jsonBytes: number;
  /** While the reply is still referenced. */
  memory: MemoryReport;
}

export const profileInput = (u: DevnetUrls) => ({
  name: 'Bench node',
  nodeUrl: u.rpcUrl,
  auth: 'password' as const,
  rpcUser: RPC_USER,
  cookiePath: '',
  wallet: WALLET,
  indexUrl: u.indexUrl,
});

/** A plain node:http request (the default agent, nothing tuned); resolves with the status and the body text. */
export function plainRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; text: string }> {
  return new Promise((res, rej) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', headers: init.headers }, (r) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (d: string) => (text += d));
      r.on('end', () => res({ status: r.statusCode ?? 0, text }));
      r.on('error', rej);
    });
    req.on('error', rej);
    req.end(init.body);
  });
}
