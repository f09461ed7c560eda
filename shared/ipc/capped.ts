import { z } from 'zod';
import { sizeProblem, type InputKind } from '../limits';

/** A text of one parser's input, refused over its cap (shared/limits.ts) with the size and the cap in words. */
export function cappedText(kind: InputKind) {
  return z.string().superRefine((s, ctx) => {
    const problem = sizeProblem(kind, s.length);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}
