/**
 * `npm run psbt -- derive --network NET --batch FILE`: Bitcoin Core's `deriveaddresses`, offline,
 * for every descriptor Core reads — miniscript in wsh() and tr() leaves, multi_a/sortedmulti_a,
 * tr() script trees, BIP389 `<a;b>` multipath. One JSON line in, one JSON line out each:
 *   {"descriptor": "<descriptor#checksum>", "range": [a, b]}   (range: [a, b], n, or absent)
 *   → {"addresses": ["…", …]}   (a multipath descriptor: one list per path, as Core)
 *   → {"error": "<Core's error text>"}
 * As Core, the checksum is required ("Missing checksum") and the range must match the
 * descriptor (ranged or not). A line that is not such an object is answered with an error line.
 */
import { deriveAddresses } from '../shared/bitcoin/descriptor';
import { NETWORKS, type Network } from '../shared/bitcoin/networks';
import { CORE_LATEST, parseCoreVersion, type CoreVersion } from '../shared/bitcoin/psbt/generation';
import { jsonString } from '../shared/json';
import { Fatal, MIB, networkOf, runBatch, UsageError, usageExit } from './psbt-io';

export const DERIVE_HELP = `derive --network NET --batch <FILE|->
  Bitcoin Core's deriveaddresses, offline. Each line is a JSON object
    {"descriptor": "<descriptor with #checksum>", "range": [begin, end]}
  ("range" may be a number n for [0, n], or absent for an unranged descriptor). Each output line:
    {"addresses": ["<address>", ...]}   (multipath <a;b>: one list per path)
    {"error": "<Core's error text>"}
  miniscript in wsh() and tr() leaves, multi_a/sortedmulti_a and tr() script trees included.
  --network NET      main (default), test, testnet4, signet or regtest.
  --core-version V   answer as Core 31.99 (default) or 30 (where they differ: Core 30 refuses
                     musig() keys inside miniscript fragments with "Invalid musig() expression").`;


/** The answer line (with newline) for one input line. */
export function deriveLine(text: string, network: Network, coreVersion: CoreVersion = CORE_LATEST): string {
  const error = (message: string): string => `{"error":${jsonString(message)}}\n`;
  let req: unknown;
  try {
    req = JSON.parse(text);
  } catch (e) {
    return error(`line is not JSON: ${(e as Error).message}`);
  }
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return error('line is not a JSON object');
  const { descriptor, range } = req as { descriptor?: unknown; range?: unknown };
  if (typeof descriptor !== 'string') return error('descriptor: expected a string');
  try {
    const addresses = deriveAddresses(descriptor, network, range === null ? undefined : range, { coreVersion });
    return `{"addresses":${JSON.stringify(addresses)}}\n`;
  } catch (e) {
    return error((e as Error).message);
  }
}


interface DeriveOptions {
  network: Network;
  batch: string;
  coreVersion: CoreVersion;
}

function parseDeriveArgs(argv: string[]): DeriveOptions {
  let network: Network = NETWORKS.main;
  let coreVersion = CORE_LATEST;
  let batch: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '--network' || a === '--chain') {
      network = networkOf(value(), a);
    } else if (a === '--core-version') {
      const v = value();
      const parsed = parseCoreVersion(v);
      if (parsed === null) throw new UsageError(`--core-version: unknown version '${v}' (31.99 or 30)`);
      coreVersion = parsed;
    } else if (a === '--batch') {
      batch = value();
    } else {
      throw new UsageError(`derive: unexpected argument '${a}'`);
    }
  }
  if (batch === undefined) throw new UsageError('derive reads JSON lines: derive --network NET --batch FILE');
  return { network, batch, coreVersion };
}

/** Runs `derive …`; returns the exit code (0 done, 2 bad usage or unreadable FILE). */
export async function runDeriveCommand(argv: string[]): Promise<number> {
  let o: DeriveOptions;
  try {
    o = parseDeriveArgs(argv);
  } catch (e) {
    return usageExit(e);
  }
  try {
    await runBatch(o.batch, 16 * MIB, {
      line: (text) => deriveLine(text, o.network, o.coreVersion),
      tooLong: (message) => `{"error":${jsonString(message)}}\n`,
    });
    return 0;
  } catch (e) {
    if (e instanceof Fatal) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
