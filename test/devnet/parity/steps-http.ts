import type { CoreVersion } from '../../../devnet/core-version';
import type { Step } from './run';

export function httpSteps(_v: CoreVersion): Step[] {
  return [];
}
