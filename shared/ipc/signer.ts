// IPC shapes of hardware wallets over USB (#30): the external signer program (HWI's command line) lists
// devices, gives an account's descriptors, shows an address on the device, and signs a draft.
import { z } from 'zod';

/** Which program runs, and where that choice came from. */
export interface SignerProgramView {
  /** The file that runs (null: none found). */
  program: string | null;
  /** env: SPYGLASS_SIGNER; setting: the file the person chose; bundled: the HWI shipped with the installed app; path: `hwi` on PATH. */
  source: 'env' | 'setting' | 'bundled' | 'path';
  /** Why it cannot run, with how to install HWI (null: it can run). */
  problem: string | null;
  /** This app can open the OS's file dialog to choose the program (Electron; never over the browser bridge). */
  nativePicker: boolean;
}

/** What the file dialog gave: picked (checked and kept, as a typed path is), or cancelled (nothing changed). */
export interface SignerPickView {
  picked: boolean;
  program: SignerProgramView;
}

export interface SignerDeviceView {
  type: string;
  model: string;
  label: string | null;
  path: string;
  /** 8 hex digits; null until the device is unlocked. */
  fingerprint: string | null;
  needsPin: boolean;
  needsPassphrase: boolean;
  /** What the device needs before it can be used, in words (null: ready). */
  needs: string | null;
  error: string | null;
}

export interface SignerListView {
  program: SignerProgramView;
  devices: SignerDeviceView[];
}

export interface SignerDescriptorPair {
  /** p2pkh | p2sh-p2wpkh | p2wpkh | p2tr */
  scriptType: string;
  receive: string;
  change: string;
}

export interface SignerDescriptorsView {
  fingerprint: string;
  account: number;
  /** Receive and change descriptors of each single-sig type the device gave, each read by Spyglass's parser. */
  pairs: SignerDescriptorPair[];
}

export interface SignerXpubView {
  fingerprint: string;
  /** The path asked for, m/…h as sent to the device. */
  path: string;
  /** The device's key at that path (xpub, or tpub off mainnet). */
  xpub: string;
}

export interface SignerDisplayView {
  address: string;
  /** The descriptor sent to the device (the address's own, from the node's getaddressinfo). */
  descriptor: string;
  /** The device showed this very address. */
  matches: true;
}

export interface SignerSignView {
  draft: import('./send').DraftView;
  message: string;
}

const fingerprint = z.string().trim().regex(/^[0-9a-fA-F]{8}$/, 'A device fingerprint is 8 hex digits');
/** An id the window picks for one device request, so that signer:cancel can stop it. */
const op = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'An operation id of letters, digits, - and _');
const empty = z.object({}).strict();

export const signerChannels = {
  /** The signer program and the devices it lists (`enumerate`). */
  'signer:list': { request: empty, reply: null as unknown as SignerListView },
  /** A device's account descriptors (`getdescriptors --account N`), checked by Spyglass's descriptor parser. */
  'signer:descriptors': { request: z.object({ fingerprint, account: z.number().int().min(0).max(0x7fffffff).default(0), op: op.optional() }).strict(), reply: null as unknown as SignerDescriptorsView },
  /** A device's extended public key at a path (`getxpub PATH`): one cosigner's key for assembling a multisig. */
  'signer:xpub': { request: z.object({ fingerprint, path: z.string().trim().regex(/^m(\/[0-9]{1,10}['h]?){0,10}$/, 'A key path like m/48h/0h/0h/2h'), op: op.optional() }).strict(), reply: null as unknown as SignerXpubView },
  /** Shows an address of the wallet on the device (`displayaddress --desc`, the node's descriptor of it) and checks the device shows the same. */
  'signer:display-address': { request: z.object({ fingerprint: fingerprint.optional(), address: z.string().trim().min(1, 'Which address?').max(100), op: op.optional() }).strict(), reply: null as unknown as SignerDisplayView },
  /** Has the device sign the draft (`signtx`, PSBT version 0); the answer is checked and merged like any signed PSBT. */
  'signer:sign': { request: z.object({ id: z.string().min(1).max(64), fingerprint, op: op.optional() }).strict(), reply: null as unknown as SignerSignView },
  /** Stops a device request still waiting (the program is ended; nothing is kept). */
  'signer:cancel': { request: z.object({ op }).strict(), reply: null as unknown as { canceled: boolean } },
  /** The signer program the person chose: a full path to an executable file, or null for the default (the bundled HWI, else `hwi` on PATH; SPYGLASS_SIGNER still overrides). */
  'signer:set-program': { request: z.object({ file: z.string().trim().min(1).max(4096).nullable() }).strict(), reply: null as unknown as SignerProgramView },
  /** Which program runs and whether a file dialog exists here (without asking the program for devices). */
  'signer:program': { request: empty, reply: null as unknown as SignerProgramView },
  /**
   * Opens the OS's file dialog (Electron only) and keeps the file picked after the same checks as a typed
   * path. The request carries nothing: the window chooses neither the dialog's folder nor any argument.
   */
  'signer:pick-program': { request: empty, reply: null as unknown as SignerPickView },
};
