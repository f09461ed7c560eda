/**
 * Command-line flags of the devnet.
 * npm run devnet -- --rpc-port N --index-port M --rpcuser U --rpcpassword P
 *                   --scenario empty|demo|large:N [--seed S] [--datadir DIR] [--core-version 30|31.99]
 *                   [--fault-rpc MODE] [--fault-index MODE] [--latency-ms MS] [--rate-limit N/SECONDS]
 *                   [--warmup-seconds S] [--rescan-ms-per-block MS]
 * Prints both URLs and stays up until SIGINT/SIGTERM, then exits 0.
 *
 * Follow mode (an index of another node's chain; only the index port is served):
 * npm run devnet -- --follow-node URL (--rpcuser U --rpcpassword P | --rpccookiefile PATH)
 *                   --index-port M [--poll-ms MS] [--fault-index MODE] [--latency-ms MS] [--rate-limit N/SECONDS]
 */
import type { DevnetOptions } from './index';
import type { StartFollowerOptions } from './follow/follower';
import { FAULT_MODES, type FaultConfig, type FaultMode } from './faults';
import { CORE_VERSIONS, parseCoreVersion } from './core-version';

export const USAGE = `usage: npm run devnet -- --rpc-port N --index-port M --rpcuser U --rpcpassword P --scenario empty|demo|large:N [--seed S] [--datadir DIR]
  --core-version 30|31.99: the Bitcoin Core generation the node answers as (default 31.99, current Core)
  fault modes (off by default): --fault-rpc MODE  --fault-index MODE  (MODE: ${FAULT_MODES.join(', ')})
                                --latency-ms MS  --rate-limit N/SECONDS (index)  --warmup-seconds S (node, -28)
  --rescan-ms-per-block MS: wallet rescans take MS per block, so getwalletinfo shows them scanning and
                            abortrescan can stop them (default 0: a rescan finishes within its call)

   or: npm run devnet -- --follow-node URL --rpcuser U --rpcpassword P --index-port M [--poll-ms MS]
       npm run devnet -- --follow-node URL --rpccookiefile PATH --index-port M [--poll-ms MS]
  serves only the index (interface B), built from the chain and mempool of the Bitcoin Core node
  (regtest) at URL, e.g. http://127.0.0.1:18443: it polls the node's tip every --poll-ms (default
  1000), follows reorgs and the mempool, and logs progress to stderr. Standard Core RPCs only; the
  node needs no -txindex. --fault-index, --latency-ms and --rate-limit apply to the served index.`;

/** What the command line asks for: the devnet (node + index) or an index following another node. */
export type CliCommand = { kind: 'devnet'; options: DevnetOptions } | { kind: 'follow'; options: StartFollowerOptions } | { kind: 'help'; text: string };

/** Flags that belong to the devnet's own node (or its chain), refused with --follow-node. */
const DEVNET_ONLY = ['--scenario', '--seed', '--datadir', '--rpc-port', '--fault-rpc', '--warmup-seconds', '--core-version', '--rescan-ms-per-block'];
/** Flags that only make sense with --follow-node. */
const FOLLOW_ONLY = ['--rpccookiefile', '--poll-ms'];

/** Devnet flags only (kept for callers that start the devnet); see {@link parseCli} for follow mode. */
export function parseArgs(argv: string[]): DevnetOptions {
  const cmd = parseCli(argv);
  if (cmd.kind !== 'devnet') throw new Error('--follow-node starts an index follower, not the devnet');
  return cmd.options;
}

export function parseCli(argv: string[]): CliCommand {
  // Asked for: the usage on stdout, exit 0 (a mistake gets it on stderr with exit 2).
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help', text: USAGE };
  const o: DevnetOptions = {};
  const rpcF: FaultConfig = {};
  const idxF: FaultConfig = {};
  let followUrl: string | null = null;
  let cookieFile: string | undefined;
  let pollMs: number | undefined;
  const seen: string[] = [];
  const take = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
    return v;
  };
  const port = (v: string, flag: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${flag}: '${v}' is not a port number`);
    return n;
  };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!;
    const v = take(i, flag);
    seen.push(flag);
    switch (flag) {
      case '--follow-node': {
        try {
          const u = new URL(v);
          if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
        } catch {
          throw new Error(`${flag}: '${v}' is not an http(s) URL (e.g. http://127.0.0.1:18443)`);
        }
        followUrl = v;
        break;
      }
      case '--rpccookiefile': cookieFile = v; break;
      case '--poll-ms': {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 10 || n > 3_600_000) throw new Error(`${flag}: '${v}' is not a number of milliseconds (10 or more)`);
        pollMs = n;
        break;
      }
      case '--rpc-port': o.rpcPort = port(v, flag); break;
      case '--index-port': o.indexPort = port(v, flag); break;
      case '--rpcuser': o.rpcUser = v; break;
      case '--rpcpassword': o.rpcPassword = v; break;
      case '--scenario': o.scenario = v; break;
      case '--seed': o.seed = v; break;
      case '--datadir': o.datadir = v; break;
      case '--core-version':
        try {
          o.coreVersion = parseCoreVersion(v);
        } catch {
          throw new Error(`${flag}: '${v}' is not a Core version (${CORE_VERSIONS.join(', ')})`);
        }
        break;
      case '--fault-rpc':
      case '--fault-index': {
        if (!FAULT_MODES.includes(v as FaultMode)) throw new Error(`${flag}: unknown mode '${v}' (${FAULT_MODES.join(', ')})`);
        (flag === '--fault-rpc' ? rpcF : idxF).mode = v as FaultMode;
        break;
      }
      case '--latency-ms': {
        const n = Number(v);
        if (!Number.isFinite(n) || n < 0) throw new Error(`${flag}: '${v}' is not a number of milliseconds`);
        rpcF.latencyMs = n;
        idxF.latencyMs = n;
        break;
      }
      case '--rate-limit': {
        const m = /^([1-9][0-9]*)\/([1-9][0-9]*)$/.exec(v);
        if (!m) throw new Error(`${flag}: use N/SECONDS, e.g. 15/5`);
        idxF.rateLimit = { limit: Number(m[1]), windowSeconds: Number(m[2]) };
        break;
      }
      case '--rescan-ms-per-block': {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new Error(`${flag}: '${v}' is not a whole number of milliseconds`);
        o.rescanDelayMs = n;
        break;
      }
      case '--warmup-seconds': {
        const n = Number(v);
        if (!Number.isFinite(n) || n < 0) throw new Error(`${flag}: '${v}' is not a number of seconds`);
        rpcF.warmup = { message: 'Loading block index…', untilMs: Date.now() + n * 1000 };
        break;
      }
      default:
        throw new Error(`unknown option ${flag}\n${USAGE}`);
    }
  }
  if (followUrl !== null) {
    const wrong = seen.find((f) => DEVNET_ONLY.includes(f));
    if (wrong) throw new Error(`${wrong} cannot be used with --follow-node (the followed node provides the chain; only the index is served)`);
    if (cookieFile !== undefined && (o.rpcUser !== undefined || o.rpcPassword !== undefined)) {
      throw new Error('--rpccookiefile replaces --rpcuser/--rpcpassword: give one or the other');
    }
    return {
      kind: 'follow',
      options: {
        url: followUrl,
        user: o.rpcUser,
        password: o.rpcPassword,
        cookieFile,
        pollMs,
        indexPort: o.indexPort,
        faults: idxF,
      },
    };
  }
  const wrong = seen.find((f) => FOLLOW_ONLY.includes(f));
  if (wrong) throw new Error(`${wrong} only applies with --follow-node URL`);
  o.faults = { rpc: rpcF, index: idxF };
  return { kind: 'devnet', options: o };
}

