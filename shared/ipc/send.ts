// IPC shapes of Send (#15: compose, coins, fees, drafts, export) and of the way back (#16: import
// signatures, combine, finalize, preflight, broadcast, bump). Amounts are satoshis as decimal
// strings, fee rates sat/vB texts ("2.5"); never floats.
import { z } from 'zod';
import { cappedText } from './capped';
import { MAX_QR_TEXT_CHARS } from '../limits';
import type { FieldError } from '../send/recipients';
import type { ComposeWarning } from '../send/warnings';
import type { SelectionWords } from '../send/selection-words';
import type { Sats } from './watch';
import type { BumpInfoView } from './bump';

export type { FieldError, ComposeWarning, SelectionWords };

export interface CoinView {
  outpoint: string;
  txid: string;
  vout: number;
  address: string;
  amountSats: Sats;
  confirmations: number;
  /** p2pkh | p2sh-p2wpkh | p2wpkh | p2tr | p2wsh 2-of-3 | … ; null when its spending size is unknown. */
  type: string | null;
  /** Why it cannot be spent here (unknown script), or null. */
  unusable: string | null;
  label: string;
  frozen: boolean;
  /** listunspent `safe`: false for unconfirmed coins from others. */
  safe: boolean;
  /** addr() coins: the PSBT will carry no key path for them. */
  keyPaths: boolean;
}

export type FeePresetId = 'next-block' | '30-min' | '1-hour' | '1-day';

export interface FeeEstimateView {
  /** sat/vB text, or null: the node has no estimate. */
  satVb: string | null;
  /** The target the estimate is for (may be more than asked). */
  blocks: number | null;
}

export interface FeePresetView {
  id: FeePresetId;
  target: number;
  economical: FeeEstimateView;
  conservative: FeeEstimateView;
}

export interface SendContextView {
  wallet: string;
  network: 'mainnet' | 'testnet' | 'signet' | 'regtest';
  /** Composed from the last facts the node gave (marked so), not the live node. */
  offline: boolean;
  /** When those facts were fetched (ISO). */
  asOf: string;
  tipHeight: number;
  coins: CoinView[];
  presets: FeePresetView[];
  /** No preset has an estimate (a fresh chain, or a node that just started). */
  noEstimate: boolean;
  minRelaySatVb: string | null;
  mempoolMinSatVb: string | null;
  incrementalSatVb: string | null;
  maxDataCarrierBytes: number | null;
  /** The PSBT version the node's createpsbt makes (31.99+: 2; 30: 0). */
  nodePsbtVersion: 0 | 2;
  /** Subversion of the node, e.g. /Satoshi:31.99.0/. */
  node: string;
  /** The wallet's spending paths when its descriptor has more than one (miniscript, taproot leaves). */
  policy?: PolicyPathsView;
}

/** The spending paths Send can take, each coin's readiness along each (outpoint → path id → words, '' when ready). */
export interface PolicyPathsView {
  words: string;
  paths: Array<{ id: string; words: string; sequence: number | null; minLocktime: number | null }>;
  readiness: Record<string, Record<string, string>>;
}

/** The spending path a preview / draft takes, and from when it can be broadcast (null: now). */
export interface PathPreviewView {
  id: string;
  words: string;
  sequence: number | null;
  minLocktime: number | null;
  notBefore: { height: number | null; blocksLeft: number; estimate: boolean; words: string } | null;
}

const rowSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('pay'), address: z.string().max(200), amount: z.string().max(40), sendMax: z.boolean().default(false), label: z.string().max(255).default('') }).strict(),
  z.object({ kind: z.literal('data'), data: z.string().max(200_000), encoding: z.enum(['text', 'hex']) }).strict(),
]);
const outpoint = z.string().regex(/^[0-9a-f]{64}:\d{1,6}$/, 'An outpoint is txid:vout');

export const SendFormSchema = z
  .object({
    rows: z.array(rowSchema).max(1000, 'At most 1,000 recipients'),
    unit: z.enum(['btc', 'sats']),
    feeRate: z.string().max(30),
    /** Coin control: exactly these coins; null: automatic. */
    coins: z.array(outpoint).max(10_000).nullable().default(null),
    includeUnconfirmed: z.boolean().default(true),
    change: z.discriminatedUnion('mode', [z.object({ mode: z.literal('auto') }).strict(), z.object({ mode: z.literal('address'), address: z.string().max(200) }).strict()]).default({ mode: 'auto' }),
    rbf: z.boolean().default(true),
    /** null: the tip height (Core's anti-fee-sniping). */
    locktime: z.number().int().min(0).max(0xffffffff).nullable().default(null),
    name: z.string().max(100).default(''),
    /**
     * Fixes the random choices (the selection's draw, the input order, the change position). The
     * preview draws one when none is given and says which; the Send page keeps it for the form.
     */
    seed: z.number().int().min(0).max(0xffffffff).optional(),
    /**
     * The spending path of a multi-path wallet (the policy's path id; null: its first path) and
     * whether a PSBT is to be signed now and broadcast later when the path's timelock is not reached.
     */
    path: z
      .object({ id: z.string().regex(/^[a-z0-9.]{1,40}$/, 'A path id'), signNow: z.boolean().default(false) })
      .strict()
      .nullable()
      .default(null),
  })
  .strict();
export type SendForm = z.input<typeof SendFormSchema>;

export interface OutputView {
  index: number;
  role: 'recipient' | 'change' | 'data';
  address: string | null;
  amountSats: Sats;
  label: string;
  /** OP_RETURN payload hex. */
  dataHex: string | null;
}

export interface InputView {
  outpoint: string;
  address: string;
  amountSats: Sats;
  type: string | null;
  label: string;
  unconfirmed: boolean;
}

export interface SendPreviewView {
  feeSats: Sats;
  feeRate: string;
  vsize: number;
  weight: number;
  feePercent: string;
  sentSats: Sats;
  inputs: InputView[];
  outputs: OutputView[];
  algorithm: string;
  /** The selection in words: which search chose the coins and why it won. */
  selection: SelectionWords;
  wasteSats: Sats;
  droppedToFeeSats: Sats;
  warnings: ComposeWarning[];
  locktime: number;
  rbf: boolean;
  /** The random choices this preview made (the form's seed, or one drawn for it). */
  seed: number;
  /**
   * This exact transaction, kept in main for `send:create` (which builds it and nothing else, or
   * refuses when a coin or the change address changed meanwhile).
   */
  plan: string;
  /** The unsigned transaction's txid: the draft created from this plan has the same. */
  unsignedTxid: string;
  /** The spending path taken (multi-path wallets). */
  path?: PathPreviewView;
}

export type SendPreviewReply = { ok: true; preview: SendPreviewView; offline: boolean } | { ok: false; errors: FieldError[] };

export interface PsbtDifferenceView {
  path: string;
  offline: string | null;
  node: string | null;
}

/** The second build: the node's createpsbt of the same transaction, compared byte for byte. */
export interface BuildCheckView {
  nodeAvailable: boolean;
  /** Why it was not asked (offline, the node refused). */
  reason: string | null;
  identical: boolean;
  version: 0 | 2;
  node: string | null;
  differences: PsbtDifferenceView[];
  /** What the node was asked: createpsbt (compose; byte for byte) or psbtbumpfee (an RBF bump; same coins and recipients). */
  method?: 'createpsbt' | 'psbtbumpfee';
  /** For a bump: fees, change and locktime of both, in words. */
  note?: string | null;
}

export interface SigningView {
  text: string;
  complete: boolean;
  /** analyzepsbt's next role. */
  next: 'creator' | 'updater' | 'signer' | 'finalizer' | 'extractor';
  inputs: Array<{ index: number; text: string; required: number; total: number; signed: number; final: boolean; keys: Array<{ fingerprint: string | null; path: string | null; signed: boolean; pubkey: string }> }>;
  cosigners: Array<{ fingerprint: string; inputs: number; signed: number }>;
  /** Signatures that do not verify, named. */
  invalid: string[];
}

export type DraftStatus = 'unsigned' | 'partial' | 'signed' | 'final' | 'sent' | 'confirmed' | 'replaced';

export interface DraftSummaryView {
  id: string;
  name: string;
  status: DraftStatus;
  wallet: string;
  unsignedTxid: string;
  txid: string | null;
  sentSats: Sats;
  feeSats: Sats;
  recipients: number;
  createdAt: string;
  updatedAt: string;
}

export interface DraftView extends DraftSummaryView {
  /** The filled PSBT as built (the node's version), base64. */
  psbt: string;
  psbtVersion: 0 | 2;
  /** The combined PSBT with every signature imported (null before any). */
  combined: string | null;
  feeRate: string;
  vsize: number;
  feePercent: string;
  rbf: boolean;
  locktime: number;
  inputs: InputView[];
  outputs: OutputView[];
  warnings: ComposeWarning[];
  build: BuildCheckView;
  /** Where the previous transactions came from. */
  prevTxSources: { node: number; index: number; cache: number };
  /** Inputs whose coins carry no key path (addr() imports). */
  noKeyPaths: number[];
  imports: Array<{ source: string; importedAt: string }>;
  signing: SigningView;
  finalTx: { hex: string; txid: string; vsize: number; feeRate: string } | null;
  /** The node's finalizepsbt cross-check: agreed, or why it was not asked. */
  finalCheck: string | null;
  replaces: string | null;
  replacedBy: string | null;
  /** The spending path taken (multi-path wallets), and from when it can be broadcast (null: now). */
  path?: PathPreviewView;
  form: SendForm;
  offline: boolean;
  sentAt: string | null;
  /** A fee bump of a wallet transaction (bump:rbf, bump:cpfp): what it bumps, and a child's package. */
  bump?: BumpInfoView | null;
}

export type SendCreateReply = { ok: true; draft: DraftView } | { ok: false; errors: FieldError[] };

export interface ImportReply {
  draft: DraftView;
  /** What each text was (PSBT version, signatures it added), or why it was refused. */
  results: Array<{ source: string; ok: boolean; message: string; /** Core's own text under the words (decodepsbt's error). */ detail?: string }>;
}

export interface PreflightView {
  allowed: boolean;
  /** The node tested it (testmempoolaccept); false: it could not (offline, or a node without the method). */
  tested: boolean;
  txid: string;
  vsize: number | null;
  feeSats: Sats | null;
  feeRate: string | null;
  /** Core's reject reason and details, and both in words. */
  reason: string | null;
  words: string | null;
  remedy: string | null;
  /** The node could not be asked (offline): the transaction is kept for later. */
  offline: boolean;
  /** What the confirmation repeats. */
  recipients: Array<{ address: string | null; amountSats: Sats; label: string; role: string }>;
}

export interface BroadcastReply {
  sent: boolean;
  txid: string;
  /** Not sent: why, in words (kept for a retry when the node was unreachable). */
  message: string | null;
  kept: boolean;
  draft: DraftView;
}

const draftId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'Not a draft id');
/** A signed PSBT (base64 or hex) or a signed raw transaction (hex; its own, smaller cap is checked where it is recognized). */
const psbtText = cappedText('psbt');

export const sendChannels = {
  /** Coins, fee presets, mempool limits, tip: from the node, or the last ones it gave (offline). */
  'send:context': { request: z.object({}).strict(), reply: null as unknown as SendContextView },
  /** Selection, fee, vsize, outputs and warnings for the form, without building anything. */
  'send:preview': { request: z.object({ form: SendFormSchema }).strict(), reply: null as unknown as SendPreviewReply },
  /**
   * Builds twice (offline and the node's createpsbt), fills, and saves the draft (all or nothing).
   * With `plan` (a preview's): exactly the transaction that preview showed, for the same form.
   */
  'send:create': {
    request: z.object({ form: SendFormSchema, plan: z.string().regex(/^p_[A-Za-z0-9_-]{8,64}$/, 'Not a preview plan').optional() }).strict(),
    reply: null as unknown as SendCreateReply,
  },
  'send:freeze': { request: z.object({ outpoint, frozen: z.boolean() }).strict(), reply: null as unknown as { frozen: boolean } },
  'drafts:list': { request: z.object({}).strict(), reply: null as unknown as { drafts: DraftSummaryView[] } },
  'drafts:get': { request: z.object({ id: draftId }).strict(), reply: null as unknown as DraftView },
  'drafts:rename': { request: z.object({ id: draftId, name: z.string().trim().min(1, 'Give the draft a name').max(100) }).strict(), reply: null as unknown as DraftView },
  'drafts:delete': { request: z.object({ id: draftId }).strict(), reply: null as unknown as { deleted: boolean } },
  /** The PSBT to hand to a signer, in the version asked (v0 by default: most signers read only v0). */
  'drafts:export': {
    request: z.object({ id: draftId, version: z.union([z.literal(0), z.literal(2)]).default(0), which: z.enum(['unsigned', 'combined']).default('unsigned') }).strict(),
    reply: null as unknown as { base64: string; bytes: number; version: 0 | 2; fileName: string; notes: string[] },
  },
  /** The draft's recipients' labels as BIP329 lines. */
  'drafts:labels': { request: z.object({ id: draftId }).strict(), reply: null as unknown as { text: string; records: number } },
  /** Signed PSBTs (base64 or hex) or a signed raw transaction: matched to their draft and combined. */
  'drafts:import': {
    request: z.object({ texts: z.array(z.object({ text: psbtText, source: z.string().max(300) }).strict()).min(1).max(20), id: draftId.optional() }).strict(),
    reply: null as unknown as ImportReply,
  },
  /** Verifies every signature, finalizes and extracts (cross-checked with the node's finalizepsbt). */
  'drafts:finalize': { request: z.object({ id: draftId }).strict(), reply: null as unknown as DraftView },
  'drafts:preflight': { request: z.object({ id: draftId }).strict(), reply: null as unknown as PreflightView },
  /** Broadcasts only with `confirmed: true` (the confirmation the screen showed). */
  'drafts:broadcast': { request: z.object({ id: draftId, confirmed: z.literal(true) }).strict(), reply: null as unknown as BroadcastReply },
  /** A replacement draft at a higher fee rate (RBF), or a child paying for the parent (CPFP). */
  'drafts:bump': {
    request: z.object({ id: draftId, method: z.enum(['rbf', 'cpfp']), feeRate: z.string().max(30), seed: z.number().int().min(0).max(0xffffffff).optional() }).strict(),
    reply: null as unknown as DraftView,
  },
  /** Animated-QR scanning: each decoded QR text is fed here (main keeps the scanner). */
  'scan:frame': { request: z.object({ session: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), text: z.string().max(MAX_QR_TEXT_CHARS, `A QR code holds at most ${MAX_QR_TEXT_CHARS.toLocaleString('en-US')} characters`) }).strict(), reply: null as unknown as ScanProgressView },
} as const;

export interface ScanProgressView {
  /** 0…1 of the parts needed. */
  progress: number;
  received: number;
  expected: number | null;
  done: boolean;
  /** When done: the PSBT, base64. */
  psbt: string | null;
  /** A frame that was not part of a PSBT QR (shown, not fatal), in words, and its kind. */
  error: string | null;
  errorCode: UrScanErrorCode | null;
}

/**
 * Why a scanned QR frame was refused: not a UR code; a UR code of no valid form; of another type than a PSBT;
 * of another message than the one being scanned; damaged (bytewords, checksum, header); announcing more than
 * a PSBT the app accepts can need (shared/limits.ts); whole but no PSBT; the decoder thread stopped.
 */
export type UrScanErrorCode = 'not-ur' | 'malformed' | 'wrong-type' | 'other-message' | 'corrupt' | 'too-large' | 'not-psbt' | 'decoder-stopped';
