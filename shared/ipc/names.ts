// Channel and event names only (no schemas), so the sandboxed preload stays tiny. contract.ts checks at
// compile time that this list and its channel table are the same set.
export const CHANNEL_PREFIX = 'spyglass:';
export const EVENT_PREFIX = 'spyglass-event:';

export const CHANNEL_NAMES = [
  'app:info',
  'keychain:status',
  'profiles:list',
  'profiles:save',
  'profiles:delete',
  'profiles:activate',
  'profiles:connect',
  'profiles:unlock',
  'connection:test',
  'connection:status',
  'connection:refresh',
  'node:listwallets',
  'demo:start',
  'watch:overview',
  'watch:refresh',
  'watch:cancel',
  'watch:address',
  'watch:transaction',
  'watch:add',
  'watch:hide',
  'watch:remove',
  'watch:history',
  'watch:reconcile',
  'watch:export-csv',
  'labels:set',
  'labels:export',
  'labels:preview',
  'labels:import',
  'psbt:review',
  'psbt:crosscheck',
  'psbt:convert',
  'psbt:qr',
  'uri:take',
  'wallet:preview',
  'wallet:import',
  'wallet:abort-rescan',
  'wallet:receive',
  'wallet:history',
  'settings:get',
  'settings:set',
] as const;

export const EVENT_NAMES = ['connection:changed', 'refresh:progress', 'watch:changed', 'uri:opened', 'app:menu', 'settings:changed', 'notify', 'wallet:scan'] as const;

export type ChannelName = (typeof CHANNEL_NAMES)[number];
export type EventNameOf = (typeof EVENT_NAMES)[number];
