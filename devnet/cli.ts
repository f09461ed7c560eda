/**
 * Entry point of `npm run devnet` (flags in cli-args.ts). Prints the URLs it serves; exits 0 on
 * SIGINT/SIGTERM. With `--follow-node URL` it serves only an index that follows that node.
 */
import { startDevnet, startFollower, type DevnetOptions } from './index';
import type { StartFollowerOptions } from './follow/follower';
import { parseCli } from './cli-args';

function onSignals(close: () => Promise<void>): void {
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    void close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function runDevnet(opts: DevnetOptions): Promise<void> {
  const started = Date.now();
  const devnet = await startDevnet(opts);
  console.log(`Spyglass devnet (regtest, scenario ${opts.scenario ?? 'empty'}, height ${devnet.node.chain.tipHeight()}, answering as Bitcoin Core ${devnet.node.coreVersion}, built in ${Date.now() - started} ms)`);
  console.log(`node  (JSON-RPC): ${devnet.rpcUrl}  user ${devnet.auth.user}${devnet.scenario.watchWallet ? `  wallet ${devnet.scenario.watchWallet}` : ''}`);
  console.log(`index (REST):     ${devnet.indexUrl}/v1/blockchain/`);
  if (devnet.cookieFile) console.log(`cookie file:      ${devnet.cookieFile}`);
  onSignals(() => devnet.close());
}

async function runFollower(opts: StartFollowerOptions): Promise<void> {
  const running = await startFollower(opts);
  console.log(`Spyglass index following ${running.follower.rpc.displayUrl} (poll every ${opts.pollMs ?? 1000} ms; progress on stderr)`);
  console.log(`index (REST):     ${running.indexUrl}/v1/blockchain/`);
  onSignals(() => running.close());
}

async function main(): Promise<void> {
  let cmd;
  try {
    cmd = parseCli(process.argv.slice(2));
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
  if (cmd.kind === 'help') {
    process.stdout.write(`${cmd.text}\n`);
    return;
  }
  const what = cmd.kind === 'follow' ? 'index follower' : 'devnet';
  try {
    if (cmd.kind === 'follow') await runFollower(cmd.options);
    else await runDevnet(cmd.options);
  } catch (e) {
    console.error(`${what} failed: ${(e as Error).message}`);
    process.exit(1);
  }
}

void main();
