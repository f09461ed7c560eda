// Schema 40: the last connection failure of each profile (JSON {code, message, at}), so a profile saved
// while its node could not be reached stays inactive and says why in Settings; cleared by a success.
import type { Database } from '../db';

export default function updateToSchemaVersion40(db: Database): void {
  db.exec(`ALTER TABLE profiles ADD COLUMN last_error TEXT NULL;`);
}
