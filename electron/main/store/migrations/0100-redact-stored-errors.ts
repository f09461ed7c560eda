// Schema 100 (#27): the errors stored before redaction existed may quote credentials a node or a
// proxy echoed (its Authorization header, user:password@ in a URL, a cookie). Each profile's last error
// and each failed refresh's message is rewritten through shared/redact.ts — its generic rules, and
// `<the profile's RPC user>:<anything>` as a credential pair; a last error that is not the JSON the
// app writes is cleared (Settings never shows one). The connection runs with secure_delete (db.ts),
// so the rewritten rows' old bytes are zeroed; after the commit, VACUUM rebuilds the file from its
// live rows (free pages and free space written before secure_delete are gone) and the WAL is
// checkpointed and truncated (../wipe.ts), so no copy of the old text stays in any file.
import { makeRedactor, type Redactor } from '../../../../shared/redact';
import type { Database } from '../db';
import { vacuum } from '../wipe';

/** The stored last error with its message redacted, or null when it is not `{code, message, at}` JSON. */
function redactLastError(text: string, redact: Redactor): string | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const { code, message, at } = v as { code?: unknown; message?: unknown; at?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string' || typeof at !== 'string') return null;
  return JSON.stringify({ code, message: redact(message), at });
}

export default function updateToSchemaVersion100(db: Database): void {
  const redactors = new Map<string, Redactor>();
  const redactorOf = (user: string): Redactor => {
    let r = redactors.get(user);
    if (!r) redactors.set(user, (r = makeRedactor({ user: user.trim() })));
    return r;
  };
  const profiles = db.prepare<[], { id: string; rpc_user: string; last_error: string | null }>('SELECT id, rpc_user, last_error FROM profiles').all();
  const setLastError = db.prepare('UPDATE profiles SET last_error = ? WHERE id = ?');
  for (const p of profiles) {
    if (p.last_error === null) continue;
    const clean = redactLastError(p.last_error, redactorOf(p.rpc_user));
    if (clean !== p.last_error) setLastError.run(clean, p.id);
  }
  const failures = db
    .prepare<[], { id: number; rpc_user: string; error_message: string }>(
      'SELECT s.id, p.rpc_user, s.error_message FROM snapshots s JOIN profiles p ON p.id = s.profile_id WHERE s.error_message IS NOT NULL',
    )
    .all();
  const setMessage = db.prepare('UPDATE snapshots SET error_message = ? WHERE id = ?');
  for (const f of failures) {
    const clean = redactorOf(f.rpc_user)(f.error_message);
    if (clean !== f.error_message) setMessage.run(clean, f.id);
  }
}

/** After the commit: no free page or WAL frame keeps the old text (VACUUM cannot run in a transaction). */
export function afterSchemaVersion100(db: Database): void {
  vacuum(db);
}
