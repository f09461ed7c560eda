// A new snapshot (NewSnapshot) as text, for the write in the import worker (snapshot-writer.ts): the
// engine builds the text in slices (slice.ts) so that 100,000 addresses with their getaddressinfo
// replies (~50 MB) never hold the main thread in one JSON.stringify or one structured clone; the
// import runner sends a long text in slices too (watch/import-runner.ts).
//
// Lines (JSON text never holds a raw line break): 1. the head (time, tips, previous id, wallet
// state); 2. `received`; 3. `addresses`; then one line per getaddressinfo reply: the address as a JSON
// string, a tab, the reply's JSON text as it came — not escaped into a string and parsed again (that
// was 2–3× the CPU here). Amounts (bigint) are written as decimal strings and read back as bigint.
import type { NewSnapshot, ReceivedRecord, SnapshotAddress } from '../store/watch';
import type { Slicer } from './slice';

/** Entries stringified at a time. */
const CHUNK = 500;

type Wire<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] extends bigint | null ? string | null : unknown };

function receivedOut(r: ReceivedRecord): Wire<ReceivedRecord> {
  const u = r.nodeUnspent;
  return {
    ...r,
    amountSats: r.amountSats.toString(),
    nodeUnspent: u === null ? null : { ...u, sats: u.sats.toString(), pending: u.pending === null ? null : u.pending.map((c) => ({ ...c, amountSats: c.amountSats.toString() })) },
  };
}

function receivedIn(r: Wire<ReceivedRecord>): ReceivedRecord {
  const w = r as unknown as ReceivedRecord & { amountSats: string; nodeUnspent: null | (Omit<NonNullable<ReceivedRecord['nodeUnspent']>, 'sats' | 'pending'> & { sats: string; pending: null | Array<{ txid: string; vout: number; amountSats: string; safe: boolean }> }) };
  const u = w.nodeUnspent;
  return {
    ...w,
    amountSats: BigInt(w.amountSats),
    nodeUnspent: u === null ? null : { ...u, sats: BigInt(u.sats), pending: u.pending === null ? null : u.pending.map((c) => ({ ...c, amountSats: BigInt(c.amountSats) })) },
  };
}

function addressOut(a: SnapshotAddress): unknown {
  return a.state === 'fetched' ? { ...a, utxos: a.utxos.map((u) => ({ ...u, amountSats: u.amountSats.toString() })) } : a;
}

function addressIn(a: SnapshotAddress): SnapshotAddress {
  return a.state === 'fetched' ? { ...a, utxos: a.utxos.map((u) => ({ ...u, amountSats: BigInt(u.amountSats as unknown as string) })) } : a;
}

async function listText<T>(items: readonly T[], out: (item: T) => unknown, slicer: Slicer): Promise<string> {
  const parts: string[] = [];
  for (let i = 0; i < items.length; i += CHUNK) {
    const t = JSON.stringify(items.slice(i, i + CHUNK).map(out));
    parts.push(t.slice(1, -1));
    await slicer.tick(CHUNK);
  }
  return `[${parts.join(',')}]`;
}

/** One getaddressinfo line of a snapshot text: the address as a JSON string, a tab, the reply's JSON text on one line. */
export function snapshotInfoLine(r: NonNullable<NewSnapshot['infos']>[number]): string {
  // A reply's text with a line break in it (written pretty by someone else) is written again on one line.
  const json = 'infoJson' in r ? (r.infoJson.includes('\n') ? JSON.stringify(JSON.parse(r.infoJson)) : r.infoJson) : JSON.stringify(r.info);
  return `${JSON.stringify(r.address)}\t${json}`;
}

/** The snapshot as text (see snapshotFromText), built a few hundred entries per turn of the event loop. */
export async function snapshotText(s: NewSnapshot, slicer: Slicer): Promise<string> {
  const head = JSON.stringify({ takenAt: s.takenAt, node: s.node, index: s.index, previousId: s.previousId, walletState: s.walletState ?? null });
  // Joined a thousand lines at a time: one join of 100,000 short strings is one long step.
  const blocks = [head, await listText(s.received, receivedOut, slicer), await listText(s.addresses, addressOut, slicer)];
  let lines: string[] = [];
  const infos = s.infos ?? [];
  for (let i = 0; i < infos.length; i++) {
    lines.push(snapshotInfoLine(infos[i]!));
    if (lines.length === 1000) {
      blocks.push(lines.join('\n'));
      lines = [];
    }
    await slicer.tick();
  }
  if (lines.length > 0) blocks.push(lines.join('\n'));
  return blocks.join('\n');
}

/** The snapshot snapshotText wrote. */
export function snapshotFromText(text: string): NewSnapshot {
  const lines = text.split('\n');
  if (lines.length < 3) throw new Error('A snapshot text has at least three lines.');
  const head = JSON.parse(lines[0]!) as Pick<NewSnapshot, 'takenAt' | 'node' | 'index' | 'previousId' | 'walletState'>;
  const received = (JSON.parse(lines[1]!) as Array<Wire<ReceivedRecord>>).map(receivedIn);
  const addresses = (JSON.parse(lines[2]!) as SnapshotAddress[]).map(addressIn);
  const infos: Array<{ address: string; infoJson: string }> = [];
  for (let i = 3; i < lines.length; i++) {
    const l = lines[i]!;
    const tab = l.indexOf('\t');
    if (tab < 0) throw new Error(`Line ${i + 1} of a snapshot text is not an address and its info.`);
    infos.push({ address: JSON.parse(l.slice(0, tab)) as string, infoJson: l.slice(tab + 1) });
  }
  return { ...head, received, addresses, infos };
}
