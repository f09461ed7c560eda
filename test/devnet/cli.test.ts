/** `npm run devnet` as a real process: --core-version picks the generation the node answers as. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { TestRpc } from '../support/rpc';

async function runDevnet(args: string[], use: (rpc: TestRpc, out: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'devnet', 'cli.ts'), '--rpcuser', 'u', '--rpcpassword', 'p', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const end = Date.now() + 60_000;
    while (!/index \(REST\)/.test(out)) {
      if (child.exitCode !== null || Date.now() > end) throw new Error(`devnet did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = /node {2}\(JSON-RPC\): (http:\/\/127\.0\.0\.1:[0-9]+)/.exec(out)![1]!;
    await use(new TestRpc(url, 'u', 'p'), out);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}

it.each([
  [['--core-version', '30'], '30', 309900, '/Satoshi:30.99.0/'],
  [[], '31.99', 319900, '/Satoshi:31.99.0/'],
] as const)('npm run devnet %j answers as Core %s', async (args, name, version, subversion) => {
  await runDevnet([...args], async (rpc, out) => {
    expect(out).toContain(`answering as Bitcoin Core ${name}`);
    expect(await rpc.call('getnetworkinfo')).toMatchObject({ version, subversion });
  });
});
