// The one HTTP transport of the main process (node RPC and block index clients). It turns every
// transport failure into an AppError whose message says what happened and what to check, names the
// peer by host:port only (never a URL with credentials), and never includes a request body.
import http from 'node:http';
import https from 'node:https';
import { AppError } from '../../../shared/errors';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Replies larger than this are cut off with an error (default 256 MiB). */
  maxBytes?: number;
  agent?: http.Agent | https.Agent;
  /** Extra CA certificates (PEM) for a node behind a TLS proxy with its own certificate. */
  ca?: string;
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the peer is, in words, for messages: "the node", "the index". */
export type PeerName = 'the node' | 'the index';

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER', 'EPROTO', 'CERT_REVOKED', 'CERT_UNTRUSTED',
]);

export function hostLabel(url: URL): string {
  return url.port ? `${url.hostname}:${url.port}` : url.hostname;
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Maps a Node socket/TLS error to an AppError with a remedy. */
/** Which side a transport error is about, for the status line ("node down" or "index down"). */
function peerOf(peer: PeerName): 'node' | 'index' {
  return peer === 'the node' ? 'node' : 'index';
}

export function transportError(err: unknown, url: URL, peer: PeerName): AppError {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const code = e?.code ?? '';
  const where = hostLabel(url);
  if (e?.name === 'AbortError' || code === 'ABORT_ERR') return new AppError('cancelled', `The request to ${peer} was cancelled.`);
  if (code === 'ECONNREFUSED') {
    return new AppError('net.refused', `Cannot reach ${peer} at ${where}: the connection was refused. Is it running, and is the port right?`, { host: where, peer: peerOf(peer) });
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.message === 'socket hang up') {
    return new AppError('net.reset', `The connection to ${peer} at ${where} was reset before it answered. It may have crashed or restarted, or a proxy dropped the request.`, { host: where, peer: peerOf(peer) });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new AppError('net.dns', `The host name of ${peer} (${url.hostname}) could not be resolved. Check the URL.`, { host: where, peer: peerOf(peer) });
  }
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL') {
    return new AppError('net.unreachable', `${cap(peer)} at ${where} is unreachable from this computer (${code}). Check the network or VPN.`, { host: where, peer: peerOf(peer) });
  }
  if (TLS_CODES.has(code) || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /certificate|ssl|tls/i.test(e?.message ?? '')) {
    const hint = code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'EPROTO'
      ? 'The server does not speak HTTPS on this port; use http:// or the TLS port of your proxy.'
      : 'The certificate is not trusted; check the proxy\'s certificate or add its CA.';
    return new AppError('net.tls', `TLS with ${peer} at ${where} failed (${code || 'TLS error'}). ${hint}`, { host: where, tls: code, peer: peerOf(peer) });
  }
  if (code === 'ETIMEDOUT') return timeoutError(url, peer, 0);
  return new AppError('net.unreachable', `Cannot reach ${peer} at ${where}${code ? ` (${code})` : ''}.`, { host: where, peer: peerOf(peer) });
}

export function timeoutError(url: URL, peer: PeerName, ms: number): AppError {
  const secs = ms > 0 ? ` within ${Math.round(ms / 100) / 10} s` : '';
  return new AppError('net.timeout', `${cap(peer)} at ${hostLabel(url)} did not answer${secs}. It may be busy (rescanning, syncing) or unreachable.`, { host: hostLabel(url), timeoutMs: ms, peer: peerOf(peer) });
}

/** Largest reply read from the node (a wallet's listunspent of 100,000 coins is ~40 MB). */
export const MAX_NODE_REPLY_BYTES = 256 * 1024 * 1024;
/** Largest reply read from the index (one page of 5,000 UTXOs is ~2 MB; a large block record ~30 MB). */
export const MAX_INDEX_REPLY_BYTES = 64 * 1024 * 1024;

function sizeLabel(bytes: number): string {
  return bytes % 1048576 === 0 ? `${bytes / 1048576} MiB` : `${bytes.toLocaleString('en-US')} bytes`;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** One HTTP exchange. Resolves for every HTTP status; rejects only with an AppError. */
export function httpRequest(req: HttpRequest, peer: PeerName): Promise<HttpResponse> {
  const { url } = req;
  const mod = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
  if (!mod) return Promise.reject(new AppError('input.invalid', `Only http:// and https:// URLs are supported (got ${url.protocol}).`));
  if (req.signal?.aborted) return Promise.reject(new AppError('cancelled', `The request to ${peer} was cancelled.`));
  const maxBytes = req.maxBytes ?? MAX_NODE_REPLY_BYTES;

  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    const finish = (err: AppError | null, res?: HttpResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(res!);
    };
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    const options: https.RequestOptions = {
      method: req.method,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers,
      agent: req.agent,
    };
    if (req.ca) options.ca = req.ca;
    const r = mod.request(options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) {
          r.destroy();
          finish(new AppError(peer === 'the node' ? 'rpc.bad_reply' : 'index.bad_reply', `${cap(peer)} at ${hostLabel(url)} sent a reply larger than ${sizeLabel(maxBytes)}, Spyglass's limit; it was not read, and nothing it would have changed was changed.`, { host: hostLabel(url), maxBytes }));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => finish(null, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (e) => finish(transportError(e, url, peer)));
      res.on('aborted', () => finish(new AppError('net.reset', `The connection to ${peer} at ${hostLabel(url)} closed in the middle of the reply.`, { host: hostLabel(url) })));
    });
    const timer = setTimeout(() => {
      r.destroy();
      finish(timeoutError(url, peer, req.timeoutMs));
    }, req.timeoutMs);
    const onAbort = (): void => {
      r.destroy();
      finish(new AppError('cancelled', `The request to ${peer} was cancelled.`));
    };
    req.signal?.addEventListener('abort', onAbort, { once: true });
    r.on('error', (e) => finish(transportError(e, url, peer)));
    if (req.body !== undefined) r.end(req.body);
    else r.end();
  });
}

/** Waits `ms`, or rejects with 'cancelled' when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AppError('cancelled', 'Cancelled.'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(new AppError('cancelled', 'Cancelled.'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
