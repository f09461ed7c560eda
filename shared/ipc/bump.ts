// IPC shapes of fee bumps from any unconfirmed wallet transaction (#28 item 2), whoever made it: what
// is possible (RBF, CPFP, and why not), and the two drafts. Amounts are satoshis as decimal strings,
// fee rates sat/vB texts ("2.5"); never floats.
import { z } from 'zod';
import type { DraftView } from './send';
import type { Sats } from './watch';

export interface BumpOutputView {
  vout: number;
  address: string;
  amountSats: Sats;
  /** Our change (an internal descriptor's address), or a payment to one of our receive addresses. */
  role: 'change' | 'receive';
  /** The child's estimated vsize when it spends this output alone to one fresh output of ours. */
  childVsize: number;
  label: string;
}

export interface BumpOptionsView {
  txid: string;
  wallet: string;
  confirmations: number;
  /** What the wallet sees: paid by others to us, paid by us (to others or ourselves), or both. */
  direction: 'incoming' | 'outgoing' | 'self' | 'mixed';
  /** The transaction's vsize (the mempool's, else from its bytes). */
  vsize: number;
  /** Its fee; null when neither the mempool, the wallet, nor the inputs' amounts tell it. */
  feeSats: Sats | null;
  feeSource: 'mempool' | 'wallet' | 'inputs' | null;
  feeRate: string | null;
  /** Its unconfirmed ancestors in the mempool (itself excluded): their vsize and fees join the package. */
  ancestors: { count: number; vsize: number; feeSats: Sats } | null;
  /** An input sequence below 0xfffffffe (BIP125), or inherited from an unconfirmed ancestor. */
  signals: boolean;
  /** The node replaces transactions that do not signal (full RBF: Core 28+). */
  fullRbf: boolean;
  /** getmempoolinfo: what a replacement must add per vB, and the mempool's floor (sat/vB texts). */
  incrementalSatVb: string | null;
  mempoolMinSatVb: string | null;
  rbf: {
    possible: boolean;
    /** Why not, in words (null when possible). */
    reason: string | null;
    /** Possible, with something to know (not signalling, but the node does full RBF). */
    note: string | null;
    /** The least rate a replacement must pay (sat/vB) and the size it is estimated at when signed. */
    minRate: string | null;
    vsize: number | null;
    changeSats: Sats | null;
  };
  cpfp: {
    possible: boolean;
    reason: string | null;
    /** Our unspent outputs of it a child can spend (change first, then the largest). */
    outputs: BumpOutputView[];
  };
}

/** What a CPFP draft carries about its package (also shown on the draft page). */
export interface BumpInfoView {
  kind: 'rbf' | 'cpfp';
  /** The transaction bumped (the parent of a CPFP child, the original of an RBF replacement). */
  txid: string;
  targetRate: string;
  /** CPFP: the package the child pays for: its ancestors in the mempool, the parent and the child. */
  parentVsize?: number;
  parentFeeSats?: Sats;
  parentFeeSource?: 'mempool' | 'wallet' | 'inputs' | 'given';
  ancestorsVsize?: number;
  ancestorsFeeSats?: Sats;
  childVsize?: number;
  childFeeSats?: Sats;
  packageVsize?: number;
  packageFeeSats?: Sats;
  packageRate?: string;
  /** RBF: the original's fee. */
  oldFeeSats?: Sats;
}

const txid = z.string().regex(/^[0-9a-f]{64}$/, 'A transaction id is 64 hex characters');
const feeRate = z.string().max(30);

export const bumpChannels = {
  /** RBF and CPFP for one unconfirmed transaction of the active wallet: possible or why not. */
  'bump:options': { request: z.object({ txid }).strict(), reply: null as unknown as BumpOptionsView },
  /** A replacement draft at `feeRate` (built here, and by the node's psbtbumpfee where its wallet knows the transaction). */
  'bump:rbf': { request: z.object({ txid, feeRate }).strict(), reply: null as unknown as DraftView },
  /**
   * A child draft spending output `vout` (plus other coins when it alone cannot pay) so that the package
   * pays `feeRate`. `parentFeeSats`: the parent's fee when the node cannot tell it (never assumed 0).
   */
  'bump:cpfp': {
    request: z
      .object({
        txid,
        vout: z.number().int().min(0).max(100_000),
        feeRate,
        parentFeeSats: z.string().regex(/^\d{1,16}$/, 'The parent fee is a whole number of satoshis').optional(),
        seed: z.number().int().min(0).max(0xffffffff).optional(),
      })
      .strict(),
    reply: null as unknown as DraftView,
  },
} as const;
