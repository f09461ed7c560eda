/**
 * npm run bench [-- devnet|psbt|psbt-roles|psbt-worker|psbt-page|overview-page|qr|qr-scan|refresh|send|create|spend|wallet|history|switch|stall|policy ...]: runs the named benchmark groups (all by default) and prints a
 * table per group with the ratio against a naive baseline measured in the same run.
 * Speed goals live here and in BENCHMARKS.md, never as timed assertions in tests.
 */
import { benchCreate } from './create';
import { benchDevnet } from './devnet';
import { benchHistory } from './history-render';
import { benchPsbt } from './psbt';
import { benchPsbtRoles } from './psbt-roles';
import { benchPsbtWorker } from './psbt-worker';
import { benchPsbtPage } from './psbt-page';
import { benchOverviewPage } from './overview-page';
import { benchPolicy } from './policy';
import { benchQr } from './qr';
import { benchQrScan } from './qr-scan';
import { benchRefresh } from './refresh';
import { benchSpend } from './spend';
import { benchStall } from './stall';
import { benchSend } from './send';
import { benchWallet } from './wallet';
import { benchSwitch } from './switch-render';
import { printTable, type Row } from './table';

const groups: Record<string, () => Promise<Row[]>> = {
  psbt: benchPsbt,
  'psbt-worker': benchPsbtWorker,
  'psbt-page': benchPsbtPage,
  'psbt-roles': benchPsbtRoles,
  devnet: benchDevnet,
  refresh: benchRefresh,
  spend: benchSpend,
  send: benchSend,
  create: benchCreate,
  wallet: benchWallet,
  history: () => benchHistory(),
  qr: benchQr,
  'qr-scan': benchQrScan,
  switch: benchSwitch,
  stall: benchStall,
  'overview-page': benchOverviewPage,
  policy: benchPolicy,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length ? wanted : Object.keys(groups);
  for (const n of names) {
    const g = groups[n];
    if (!g) {
      console.error(`unknown benchmark group '${n}' (have: ${Object.keys(groups).join(', ')})`);
      process.exit(2);
    }
    printTable(n, await g());
  }
}

void main();
