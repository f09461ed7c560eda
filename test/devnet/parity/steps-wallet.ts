import type { Step } from './run';

export function walletSteps(): Step[] {
  return [];
}
