// The IPC handler table: one plain function per channel of shared/ipc/contract.ts. `dispatch` is the
// single entry used by both the Electron shell (ipcMain.handle) and the loopback bridge: it checks the
// channel name, validates the payload with the channel's schema, runs the handler and wraps the result
// as {ok, value} or {ok: false, error: {code, message}} — never a stack trace or a secret.
import type { z } from 'zod';
import { AppError, toIpcError, type IpcResult } from '../../../shared/errors';
import { channels, isChannel, type Channel, type ParsedRequest, type Reply } from '../../../shared/ipc/contract';
import type { Logger } from '../log';
import type { Services } from '../services';
import type { WatchService } from '../watch/service';
import type { PsbtService } from '../psbt/service';
import type { UriInbox } from '../uri';
import type { SettingsService } from '../settings-service';
import type { WalletService } from '../wallet/service';
import type { SendService } from '../send/index';
import type { WalletExportService } from '../wallet/export-service';
import type { SignerService } from '../signer/service';

export type Handlers = { [C in Channel]: (req: ParsedRequest<C>) => Promise<Reply<C>> | Reply<C> };

export function createHandlers(s: Services, w: WatchService, p: PsbtService, uris: UriInbox, settings: SettingsService, wallet: WalletService, send: SendService, walletExport: WalletExportService, signer: SignerService): Handlers {
  return {
    'app:info': () => s.info(),
    'keychain:status': () => s.keychainStatus(),
    'profiles:list': () => s.listProfiles(),
    'profiles:save': async (r) => ({ profile: await s.saveProfile(r.id, r.profile, r.password, r.remember) }),
    'profiles:delete': async (r) => {
      const done = await s.deleteProfile(r.id);
      settings.deleteProfile(r.id);
      return done;
    },
    'profiles:activate': (r) => s.activate(r.id),
    'profiles:connect': (r) => s.connect(r.id),
    'profiles:unlock': (r) => s.unlock(r.id, r.password, r.remember),
    'connection:test': (r) => s.test(r.id, r.profile, r.password),
    'connection:status': () => s.connectionState(),
    'connection:refresh': () => s.refresh(),
    'node:listwallets': (r) => s.listWallets(r.id, r.profile, r.password),
    'demo:start': () => s.startDemo(),
    'watch:overview': (r) => w.overview(r.page),
    'watch:overview-page': (r) => w.overviewPage({ sort: r.sort, dir: r.dir, filter: r.filter, showHidden: r.showHidden }, r.from, r.count),
    'watch:refresh': () => w.refresh(),
    'watch:cancel': () => w.cancel(),
    'watch:address': (r) => w.address(r.address),
    'watch:transaction': (r) => w.transaction(r.txid),
    'watch:add': (r) => w.add(r.text),
    'watch:hide': (r) => w.hide(r.address, r.hidden),
    'watch:remove': (r) => w.remove(r.address),
    'watch:history': () => w.history(),
    'watch:reconcile': () => w.reconcile(),
    'watch:export-csv': (r) => w.exportCsv(r.unit, r.includeHidden),
    'labels:set': (r) => w.setLabel(r.type, r.ref, r.label),
    'labels:export': () => w.exportLabels(),
    'labels:preview': (r) => w.previewLabels(r.text, r.rule),
    'labels:import': (r) => w.importLabels(r.text, r.rule),
    'psbt:review': (r) => p.review(r.psbt, r.encoding),
    'psbt:review-page': (r) => p.reviewPage(r),
    'psbt:review-core-json': (r) => p.reviewCoreJson(r),
    'psbt:crosscheck': (r) => p.crosscheck(r.psbt, r.encoding),
    'psbt:convert': (r) => p.convert(r.psbt, r.encoding, r.to),
    'psbt:qr': (r) => p.qr(r.psbt, r.encoding, r.fragmentLength, r.from, r.count),
    'uri:take': () => uris.take(),
    'wallet:preview': (r) => wallet.preview(r),
    'wallet:import': (r) => wallet.importToNode(r, (progress) => s.emit('wallet:scan', progress)),
    'wallet:abort-rescan': () => wallet.abortRescan(),
    'wallet:receive': () => wallet.receive(),
    'wallet:next-address': () => wallet.nextAddress(),
    'wallet:receive-label': (r) => wallet.setReceiveLabel(r.address, r.label),
    'wallet:history': (r) => wallet.history(r.all),
    'wallet:balances': () => wallet.balances(),
    'wallet:export': (r) => walletExport.export(r.format),
    'settings:get': () => settings.view(),
    'settings:set': (r) => settings.set(r),
    'send:context': () => send.compose.context(),
    'send:preview': (r) => send.compose.preview(r.form),
    'send:create': (r) => send.compose.create(r.form, r.plan),
    'send:freeze': (r) => send.compose.freeze(r.outpoint, r.frozen),
    'drafts:list': () => send.list(),
    'drafts:get': (r) => send.drafts.get(r.id),
    'drafts:rename': (r) => send.drafts.rename(r.id, r.name),
    'drafts:delete': (r) => send.drafts.delete(r.id),
    'drafts:export': (r) => send.drafts.export(r.id, r.version, r.which),
    'drafts:labels': (r) => send.drafts.labels(r.id),
    'drafts:import': (r) => send.sign.import(r.texts, r.id),
    'drafts:finalize': (r) => send.sign.finalize(r.id),
    'drafts:preflight': (r) => send.broadcast.preflight(r.id),
    'drafts:broadcast': (r) => send.broadcast.broadcast(r.id),
    'drafts:bump': (r) => (r.method === 'rbf' ? send.broadcast.bumpRbf(r.id, r.feeRate) : send.compose.cpfp(r.id, r.feeRate, r.seed)),
    'scan:frame': (r) => send.sign.scanFrame(r.session, r.text),
    'bump:options': (r) => send.bumpAny.options(r.txid),
    'bump:rbf': (r) => send.bumpAny.rbf(r.txid, r.feeRate),
    'bump:cpfp': (r) => send.bumpAny.cpfp(r),
    // watch any wallet (#17): attach to a node wallet; an interrupted rescan run again
    'wallet:node-wallets': () => wallet.nodeWallets(),
    'wallet:attach': (r) => wallet.attach(r.walletName, r.acknowledgeKeys === undefined ? {} : { acknowledgeKeys: r.acknowledgeKeys }),
    'wallet:list': () => wallet.list(),
    'wallet:switch': (r) => wallet.switchTo(r.walletName),
    'wallet:rescan-status': () => wallet.rescanStatus(),
    'wallet:rescan': () => wallet.rescan((progress) => s.emit('wallet:scan', progress)),
    // hardware wallets over USB (#30): the external signer program
    'signer:list': () => signer.list(),
    'signer:descriptors': (r) => signer.descriptors(r.fingerprint, r.account, r.op),
    'signer:xpub': (r) => signer.xpub(r.fingerprint, r.path, r.op),
    'signer:display-address': (r) => signer.displayAddress(r.address, r.fingerprint, r.op),
    'signer:sign': (r) => signer.sign(r.id, r.fingerprint, r.op),
    'signer:cancel': (r) => signer.cancel(r.op),
    'signer:set-program': (r) => signer.setProgram(r.file),
    'signer:program': () => signer.program(),
    'signer:pick-program': () => signer.pickProgram(),
  };
}

/** Turns schema issues into one readable sentence naming each field ("profile.nodeUrl: Use an http:// …"). */
export function describeIssues(channel: string, error: z.ZodError): AppError {
  const parts = error.issues.slice(0, 5).map((i) => {
    const path = i.path.map(String).join('.');
    const msg = i.code === 'unrecognized_keys' ? `unexpected field${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}` : i.message;
    return path ? `${path}: ${msg}` : msg;
  });
  const first = error.issues[0];
  const field = first && first.path.length ? first.path.map(String).join('.') : null;
  return new AppError('input.invalid', `Invalid request for ${channel}: ${parts.join('; ')}`, { channel, field });
}

export async function dispatch(handlers: Handlers, channel: unknown, payload: unknown, log: Logger): Promise<IpcResult<unknown>> {
  if (!isChannel(channel)) {
    log.warn(`ipc: refused unknown channel ${JSON.stringify(String(channel)).slice(0, 80)}`);
    return { ok: false, error: { code: 'input.invalid', message: 'Unknown IPC channel.' } };
  }
  const parsed = channels[channel].request.safeParse(payload ?? {});
  if (!parsed.success) {
    const err = describeIssues(channel, parsed.error);
    log.warn(`ipc ${channel}: ${err.message}`);
    return { ok: false, error: err.toIpc() };
  }
  const started = Date.now();
  try {
    const handler = handlers[channel] as (r: unknown) => Promise<unknown> | unknown;
    const value = await handler(parsed.data);
    log.info(`ipc ${channel} ok ${Date.now() - started} ms`);
    return { ok: true, value };
  } catch (e) {
    const error = toIpcError(e);
    log.warn(`ipc ${channel} failed ${error.code}: ${error.message}`);
    if (error.code === 'internal') log.error(`ipc ${channel}: ${(e as Error)?.stack ?? String(e)}`);
    return { ok: false, error };
  }
}
