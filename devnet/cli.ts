/** Entry point of `npm run devnet` (flags in cli-args.ts). Prints both URLs; exits 0 on SIGINT/SIGTERM. */
import { startDevnet, type DevnetOptions } from './index';
import { parseArgs } from './cli-args';

async function main(): Promise<void> {
  let opts: DevnetOptions;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error((e as Error).message);
    process.exit(2);
  }
  const started = Date.now();
  const devnet = await startDevnet(opts);
  console.log(`Spyglass devnet (regtest, scenario ${opts.scenario ?? 'empty'}, height ${devnet.node.chain.tipHeight()}, built in ${Date.now() - started} ms)`);
  console.log(`node  (JSON-RPC): ${devnet.rpcUrl}  user ${devnet.auth.user}${devnet.scenario.watchWallet ? `  wallet ${devnet.scenario.watchWallet}` : ''}`);
  console.log(`index (REST):     ${devnet.indexUrl}/v1/blockchain/`);
  if (devnet.cookieFile) console.log(`cookie file:      ${devnet.cookieFile}`);
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    void devnet.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main().catch((e: unknown) => {
  console.error(`devnet failed: ${(e as Error).message}`);
  process.exit(1);
});
