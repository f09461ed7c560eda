// The person's settings: the app's (unit, theme, how often to follow the chain, fee warnings, the fee
// preset compose starts from) and each profile's (notifications). Kept in SQLite by main, applied live.
import { DEFAULT_THRESHOLDS } from './bitcoin/psbt/review-types';

export type Unit = 'btc' | 'sats';
export type Theme = 'system' | 'light' | 'dark';
export type FeePreset = 'next-block' | '30-min' | '1-hour' | '1-day';

export interface AppSettings {
  unit: Unit;
  theme: Theme;
  /** How often the chain monitor polls, in seconds; 0: off (refresh by hand). */
  refreshSeconds: number;
  /** Warn when a PSBT's fee rate is above this many sat/vB. */
  feeRateWarnSatVb: number;
  /** Warn when the fee is more than this percentage of the amount sent. */
  feePercentWarn: number;
  defaultFeePreset: FeePreset;
}

export interface ProfileSettings {
  /** A desktop notification for an incoming payment and for its first confirmation. */
  notifications: boolean;
  /** The index URL whose "a third-party index learns every watched address" notice was acknowledged ('' none). */
  indexNoticeAcknowledged: string;
  /**
   * The node wallets holding private keys this profile may watch: the person acknowledged, when
   * attaching each, that it holds keys (set by wallet:attach only, not by settings:set).
   */
  keyWalletsAcknowledged: string[];
}

export const DEFAULT_APP_SETTINGS: AppSettings = {
  unit: 'btc',
  theme: 'system',
  refreshSeconds: 10,
  feeRateWarnSatVb: DEFAULT_THRESHOLDS.feeRateSatVb,
  feePercentWarn: DEFAULT_THRESHOLDS.feePercent,
  defaultFeePreset: '30-min',
};

export const DEFAULT_PROFILE_SETTINGS: ProfileSettings = { notifications: true, indexNoticeAcknowledged: '', keyWalletsAcknowledged: [] };

/** The refresh intervals the Settings page offers (seconds; 0 = off). */
export const REFRESH_CHOICES: readonly number[] = [0, 5, 10, 30, 60, 300, 900];
