// The profile form's client-side check, with the contract's own schema. Its own module: the schema
// (zod) is only loaded with the profile form, not when the app starts.
import { ProfileInputSchema, type ProfileInput } from '../../../shared/ipc/contract';
import type { ProfileDraft } from '../stores/profiles';

export type FieldErrors = Partial<Record<keyof ProfileDraft, string>>;

/** Client-side check with the contract's own schema: the parsed profile, or one message per field. */
export function validateDraft(draft: ProfileDraft): { ok: true; profile: ProfileInput } | { ok: false; errors: FieldErrors } {
  const r = ProfileInputSchema.safeParse(draft);
  if (r.success) return { ok: true, profile: r.data };
  const errors: FieldErrors = {};
  for (const issue of r.error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && field in draft && errors[field as keyof ProfileDraft] === undefined) errors[field as keyof ProfileDraft] = issue.message;
  }
  return { ok: false, errors };
}
