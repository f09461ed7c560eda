// Checking a big PSBT's signatures on every core. Before the PSBT worker combines or finalizes a PSBT of
// many inputs, its inputs are cut into slices: helper threads (the same worker script, role 'verify')
// verify one slice each while this thread verifies its own; the helpers hand back what they reached
// (the keys each ECDSA signature recovers to, the Schnorr verdicts: pure functions of their bytes), and
// the job that follows finds every signature already checked. Nothing is trusted that this code did not
// compute: a helper that fails or is slow only means its inputs are verified here, as without the pool.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { decodeBase64Core, exportSignatureVerdicts, parsePsbt, seedSignatureVerdicts, verifyPsbtSignatures, type Psbt, type SignatureVerdicts } from '../../../shared/bitcoin/psbt';
import { forgetSignatureVerdicts } from '../../../shared/bitcoin/psbt/checker';

/** Below this many inputs one thread is as quick (a helper parses the PSBT too). */
export const POOL_MIN_INPUTS = 64;

/** A worker script as structured-cloneable data (a URL object is not): the file's href. */
export interface HelperScript {
  href: string;
  execArgv?: string[];
}

export interface VerifySliceRequest {
  psbts: string[];
  from: number;
  to: number;
}

function models(psbts: string[]): Psbt[] {
  const out: Psbt[] = [];
  for (const b of psbts) {
    const bytes = decodeBase64Core(b);
    const r = bytes ? parsePsbt(bytes) : null;
    // Unreadable: the job itself reports it; nothing to verify ahead.
    if (r?.ok) out.push(r.psbt);
  }
  return out;
}

/** A helper's work: the signatures of inputs [from, to) of each PSBT, and what verifying them reached. */
export function verifySlice(req: VerifySliceRequest): SignatureVerdicts {
  forgetSignatureVerdicts();
  for (const p of models(req.psbts)) verifyPsbtSignatures(p, { from: req.from, to: req.to });
  return exportSignatureVerdicts();
}

/** The PSBTs a job is about to verify (combine: the draft and the signed ones; finalize: one). */
export function psbtsOfJob(job: string, request: unknown): string[] {
  const r = request as { psbts?: unknown; psbt?: unknown } | null;
  if (job === 'send-combine' && Array.isArray(r?.psbts)) return r.psbts.filter((x): x is string => typeof x === 'string');
  if (job === 'send-finalize' && typeof r?.psbt === 'string') return [r.psbt];
  return [];
}

interface Helper {
  worker: Worker;
  busy: Map<number, { resolve(v: SignatureVerdicts): void; reject(e: Error): void }>;
}

export class VerifyPool {
  readonly #helpers: (Helper | null)[];
  #nextId = 1;
  #closed = false;

  /** `size` helper threads besides this one (default: one per core but this thread's, at most 7). */
  constructor(
    private readonly script: HelperScript,
    readonly size = Math.min(7, Math.max(0, availableParallelism() - 1)),
  ) {
    this.#helpers = Array.from({ length: size }, () => null);
  }

  #helper(k: number): Helper {
    const known = this.#helpers[k];
    if (known) return known;
    const worker = new Worker(new URL(this.script.href), { workerData: { role: 'verify' }, ...(this.script.execArgv ? { execArgv: this.script.execArgv } : {}) });
    const h: Helper = { worker, busy: new Map() };
    worker.on('message', (m: { id: number; ok: boolean; value?: SignatureVerdicts; error?: string }) => {
      const p = h.busy.get(m.id);
      if (!p) return;
      h.busy.delete(m.id);
      if (m.ok) p.resolve(m.value!);
      else p.reject(new Error(m.error));
    });
    const lost = (why: string): void => {
      if (this.#helpers[k] === h) this.#helpers[k] = null;
      for (const p of h.busy.values()) p.reject(new Error(`verify helper stopped: ${why}`));
      h.busy.clear();
    };
    worker.on('error', (e) => lost(e.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    worker.unref();
    this.#helpers[k] = h;
    return h;
  }

  #run(k: number, req: VerifySliceRequest): Promise<SignatureVerdicts> {
    let h: Helper;
    try {
      h = this.#helper(k);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    const id = this.#nextId++;
    return new Promise<SignatureVerdicts>((resolve, reject) => {
      h.busy.set(id, { resolve, reject });
      h.worker.ref();
      h.worker.postMessage({ id, request: req });
    }).finally(() => {
      if (h.busy.size === 0) h.worker.unref();
    });
  }

  /**
   * Verifies the signatures of `psbts` across the helpers and this thread, leaving every verdict
   * reached in this thread's memo. Returns how many threads took part (1: not worth splitting).
   */
  async preverify(psbts: string[]): Promise<number> {
    if (this.#closed || this.size === 0 || psbts.length === 0) return 1;
    const ms = models(psbts);
    const inputs = Math.max(0, ...ms.map((p) => p.inputs.length));
    if (inputs < POOL_MIN_INPUTS) return 1;
    const parts = this.size + 1;
    const per = Math.ceil(inputs / parts);
    const pending: Promise<SignatureVerdicts>[] = [];
    for (let k = 1; k < parts && k * per < inputs; k++) pending.push(this.#run(k - 1, { psbts, from: k * per, to: (k + 1) * per }));
    for (const p of ms) verifyPsbtSignatures(p, { from: 0, to: per });
    for (const r of await Promise.allSettled(pending)) if (r.status === 'fulfilled') seedSignatureVerdicts(r.value);
    return pending.length + 1;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const ws = this.#helpers.filter((h): h is Helper => h !== null);
    this.#helpers.fill(null);
    await Promise.all(ws.map((h) => h.worker.terminate()));
  }
}
