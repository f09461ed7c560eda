/**
 * Command-line flags of the devnet.
 * npm run devnet -- --rpc-port N --index-port M --rpcuser U --rpcpassword P
 *                   --scenario empty|demo|large:N [--seed S] [--datadir DIR]
 *                   [--fault-rpc MODE] [--fault-index MODE] [--latency-ms MS] [--rate-limit N/SECONDS]
 *                   [--warmup-seconds S]
 * Prints both URLs and stays up until SIGINT/SIGTERM, then exits 0.
 */
import type { DevnetOptions } from './index';
import { FAULT_MODES, type FaultConfig, type FaultMode } from './faults';

export const USAGE = `usage: npm run devnet -- --rpc-port N --index-port M --rpcuser U --rpcpassword P --scenario empty|demo|large:N [--seed S] [--datadir DIR]
  fault modes (off by default): --fault-rpc MODE  --fault-index MODE  (MODE: ${FAULT_MODES.join(', ')})
                                --latency-ms MS  --rate-limit N/SECONDS (index)  --warmup-seconds S (node, -28)`;

export function parseArgs(argv: string[]): DevnetOptions {
  const o: DevnetOptions = {};
  const rpcF: FaultConfig = {};
  const idxF: FaultConfig = {};
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
    if (flag === '--help' || flag === '-h') throw new Error(USAGE);
    const v = take(i, flag);
    switch (flag) {
      case '--rpc-port': o.rpcPort = port(v, flag); break;
      case '--index-port': o.indexPort = port(v, flag); break;
      case '--rpcuser': o.rpcUser = v; break;
      case '--rpcpassword': o.rpcPassword = v; break;
      case '--scenario': o.scenario = v; break;
      case '--seed': o.seed = v; break;
      case '--datadir': o.datadir = v; break;
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
  o.faults = { rpc: rpcF, index: idxF };
  return o;
}

