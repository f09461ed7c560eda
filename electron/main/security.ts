// Electron security settings as plain data, so tests can read exactly what the window gets. The
// Electron-importing index.ts applies these; nothing here imports 'electron'.

/** Content Security Policy of every page the app shows. No remote content, no inline script, no eval. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
  "worker-src 'none'",
].join('; ');

/** The subset of Electron's WebPreferences we set, spelled as Electron names them. */
export interface SecureWebPreferences {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  experimentalFeatures: false;
  webviewTag: false;
  navigateOnDragDrop: false;
  spellcheck: false;
  safeDialogs: true;
  devTools: boolean;
}

export function secureWebPreferences(preloadPath: string, opts: { devTools: boolean }): SecureWebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    safeDialogs: true,
    devTools: opts.devTools,
  };
}

/**
 * The app's own origin. Production loads `file://…/renderer/index.html`; development loads the
 * electron-vite dev server on loopback. Any other URL is foreign.
 */
export interface AppOrigin {
  /** The exact index.html file URL in production, or the dev server origin (http://localhost:5173). */
  rendererUrl: string;
}

/** True only for a URL of the app's own renderer (same file, or same dev-server origin). */
export function isAppUrl(url: string, origin: AppOrigin): boolean {
  let u: URL;
  let base: URL;
  try {
    u = new URL(url);
    base = new URL(origin.rendererUrl);
  } catch {
    return false;
  }
  if (base.protocol === 'file:') return u.protocol === 'file:' && u.pathname === base.pathname;
  return (base.protocol === 'http:' || base.protocol === 'https:') && u.origin === base.origin;
}

/**
 * Navigation policy (`will-navigate`, `will-redirect`, `will-frame-navigate`): never leave the app.
 * Hash changes inside the app do not fire will-navigate, so every real navigation is refused except a
 * reload of the app itself.
 */
export function allowNavigation(targetUrl: string, origin: AppOrigin): boolean {
  return isAppUrl(targetUrl, origin);
}

/** `setWindowOpenHandler`: no new windows, ever. Links to block explorers are not opened from here. */
export function windowOpenPolicy(): { action: 'deny' } {
  return { action: 'deny' };
}

/** What Electron tells about a permission request (the parts we read). */
export interface PermissionDetails {
  /** 'media' requests: which devices ('video', 'audio'). */
  mediaTypes?: string[];
  /** The page asking (requests only; a check gives `requestingOrigin` instead). */
  requestingUrl?: string;
  requestingOrigin?: string;
}

/**
 * Permission requests: all denied but one — the camera alone (video, no microphone), asked by the
 * app's own page, to scan a signer's QR code back (Send, #16). Notifications, clipboard reading,
 * geolocation, the microphone, anything from another origin: denied.
 */
export function allowPermission(permission: string, details: PermissionDetails = {}, origin?: AppOrigin): boolean {
  if (permission !== 'media' || !origin) return false;
  const types = details.mediaTypes ?? [];
  if (types.length !== 1 || types[0] !== 'video') return false;
  const from = details.requestingUrl ?? details.requestingOrigin;
  return from !== undefined && (isAppUrl(from, origin) || isAppUrl(`${from.replace(/\/$/, '')}/`, origin));
}

/**
 * IPC sender check (VS Code's validatedIpcMain): only the main frame of our own window, showing our own
 * renderer URL, may call a channel.
 */
export function isTrustedSender(sender: { frameUrl: string | null; isMainFrame: boolean }, origin: AppOrigin): boolean {
  return sender.isMainFrame && sender.frameUrl !== null && isAppUrl(sender.frameUrl, origin);
}

/**
 * The CSP with a style nonce added, for `npm run dev` only: Vite's dev server injects every component's
 * styles as <style> tags, each carrying the dev server's nonce (electron.vite.config.ts); the built app
 * and `npm run web` link their styles as files and get CONTENT_SECURITY_POLICY unchanged.
 */
export function contentSecurityPolicy(devStyleNonce?: string): string {
  if (!devStyleNonce) return CONTENT_SECURITY_POLICY;
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(devStyleNonce)) throw new Error('a dev style nonce must be 16+ base64 characters');
  return CONTENT_SECURITY_POLICY.replace("style-src 'self'", `style-src 'self' 'nonce-${devStyleNonce}'`);
}

/** Response headers added to every app response (file:// pages get the CSP via the <meta> too). */
export function securityHeaders(devStyleNonce?: string): Record<string, string[]> {
  return {
    'Content-Security-Policy': [contentSecurityPolicy(devStyleNonce)],
    'X-Content-Type-Options': ['nosniff'],
    'Referrer-Policy': ['no-referrer'],
    'Cross-Origin-Opener-Policy': ['same-origin'],
  };
}

/** Chromium switches that keep a watch-only wallet from talking to anything but its own peers. */
export const HARDENING_SWITCHES: ReadonlyArray<readonly [string, string?]> = [
  ['disable-background-networking'],
  ['disable-component-update'],
  ['disable-features', 'Translate,MediaRouter,OptimizationHints,AutofillServerCommunication'],
];
