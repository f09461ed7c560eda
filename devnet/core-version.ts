/**
 * The Bitcoin Core generation the devnet answers as (#14): `31.99` — current Core, the v32 line
 * (master of July 2026; the default) — or `30` — the v30 line the first recordings come from (their node
 * was 30.99, between v30.0 and v31.0). What differs between them in the methods the devnet serves is
 * read from here: the recordings in ../shared/fixtures/core and the live comparison with both real
 * builds (test/devnet/bitcoind-parity.test.ts) are the reference.
 */
import type { CoreVersion as PsbtGeneration } from '../shared/bitcoin/psbt/generation';

export type CoreVersion = '30' | '31.99';

export const CORE_VERSIONS: readonly CoreVersion[] = ['30', '31.99'];
export const DEFAULT_CORE_VERSION: CoreVersion = '31.99';

export function parseCoreVersion(s: string): CoreVersion {
  if ((CORE_VERSIONS as readonly string[]).includes(s)) return s as CoreVersion;
  throw new Error(`unknown Core version '${s}' (use ${CORE_VERSIONS.join(' or ')})`);
}

/** getnetworkinfo's identity of each generation (the nodes that recorded the fixtures). */
export const NETWORK_IDENTITY: Record<CoreVersion, { version: number; subversion: string; protocolversion: number }> = {
  '30': { version: 309900, subversion: '/Satoshi:30.99.0/', protocolversion: 70016 },
  '31.99': { version: 319900, subversion: '/Satoshi:31.99.0/', protocolversion: 70017 },
};

/** Both builds are pre-release ones (x.99): getblockchaininfo and getnetworkinfo carry this warning. */
export const PRE_RELEASE_WARNING = 'This is a pre-release test build - use at your own risk - do not use for mining or merchant applications';

/** The shared PSBT decoder's name for a generation. */
export function psbtGeneration(v: CoreVersion): PsbtGeneration {
  return v === '30' ? 30 : 31.99;
}
