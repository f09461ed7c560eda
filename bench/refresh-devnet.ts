/**
 * The refresh bench's devnet: `startDevnet` in a child process (so that its work never counts as the
 * app's memory), controlled over the child's stdin (`latency N` sets the latency of both interfaces).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { RPC_PASSWORD, RPC_USER, type DevnetUrls } from './refresh-common';

export interface DevnetChild {
  ready: Promise<DevnetUrls & { buildMs: number; tipHeight: number }>;
  /** Sets the latency the devnet adds to every reply of both interfaces. */
  setLatency(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the devnet (startDevnet) in a child process, controlled over its stdin: `childScript` runs
 * bench/refresh.ts (bundled or through tsx) in `cwd`.
 */
export function startDevnetChild(childScript: string[], cwd: string, scenario: string): DevnetChild {
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...childScript, 'devnet', JSON.stringify({ scenario })], {
    cwd,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const waiting: Array<(line: string) => void> = [];
  let exited = false;
  const exit = new Promise<void>((res) =>
    child.once('exit', () => {
      exited = true;
      res();
    }),
  );
  lines.on('line', (l) => waiting.shift()?.(l));
  const nextLine = (): Promise<string> =>
    new Promise((res, rej) => {
      waiting.push(res);
      void exit.then(() => rej(new Error('the devnet child exited')));
    });
  const ready = nextLine().then((l) => {
    if (!l.startsWith('READY ')) throw new Error(`devnet child: ${l}`);
    return { ...(JSON.parse(l.slice(6)) as DevnetUrls & { tipHeight: number }), buildMs: performance.now() - t0 };
  });
  ready.catch(() => {}); // awaited later; an early failure must not be an unhandled rejection meanwhile
  return {
    ready,
    async setLatency(ms) {
      const reply = nextLine();
      child.stdin!.write(`latency ${ms}\n`);
      if ((await reply) !== `LATENCY ${ms}`) throw new Error('devnet child did not confirm the latency');
    },
    async stop() {
      if (exited) return;
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** The devnet, as `startDevnet` serves it; `latency N` on stdin sets the latency of both interfaces. */
export async function devnetChild(arg: { scenario: string }): Promise<void> {
  const { startDevnet } = await import('../devnet/index');
  const d = await startDevnet({ scenario: arg.scenario, rpcUser: RPC_USER, rpcPassword: RPC_PASSWORD });
  process.stdout.write(`READY ${JSON.stringify({ rpcUrl: d.rpcUrl, indexUrl: d.indexUrl, tipHeight: d.node.chain.tipHeight() })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    const m = /^latency (\d+)$/.exec(line.trim());
    if (m) {
      d.setFaults('rpc', { latencyMs: Number(m[1]) });
      d.setFaults('index', { latencyMs: Number(m[1]) });
      process.stdout.write(`LATENCY ${m[1]}\n`);
    }
  }
  await d.close(); // stdin closed: the bench is done with it
}
