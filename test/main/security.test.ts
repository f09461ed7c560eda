// The Electron window's security settings, read from the pure module the shell applies (the Electron
// runtime itself cannot run on this machine; electron/main/index.ts only passes these through).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/web-process';
import { describe, expect, it } from 'vitest';
import {
  allowNavigation,
  allowPermission,
  CONTENT_SECURITY_POLICY,
  contentSecurityPolicy,
  isTrustedSender,
  secureWebPreferences,
  securityHeaders,
  windowOpenPolicy,
} from '../../electron/main/security';

const prod = { rendererUrl: 'file:///opt/Spyglass/resources/app.asar/out/renderer/index.html' };
const dev = { rendererUrl: 'http://localhost:5173/' };

describe('web preferences', () => {
  const p = secureWebPreferences('/x/preload/index.cjs', { devTools: false });
  it('isolates and sandboxes the renderer, with no Node', () => {
    expect(p.contextIsolation).toBe(true);
    expect(p.sandbox).toBe(true);
    expect(p.nodeIntegration).toBe(false);
    expect(p.nodeIntegrationInWorker).toBe(false);
    expect(p.nodeIntegrationInSubFrames).toBe(false);
    expect(p.webSecurity).toBe(true);
    expect(p.allowRunningInsecureContent).toBe(false);
    expect(p.webviewTag).toBe(false);
    expect(p.experimentalFeatures).toBe(false);
    expect(p.navigateOnDragDrop).toBe(false);
    expect(p.preload).toBe('/x/preload/index.cjs');
  });
  it('keeps dev tools out of packaged builds', () => {
    expect(secureWebPreferences('/p', { devTools: false }).devTools).toBe(false);
    expect(secureWebPreferences('/p', { devTools: true }).devTools).toBe(true);
  });
});

describe('content security policy', () => {
  const directives = new Map(CONTENT_SECURITY_POLICY.split(';').map((d) => {
    const [name, ...values] = d.trim().split(/\s+/);
    return [name!, values];
  }));
  it('allows only the app itself, no inline script, no eval, no remote content', () => {
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    for (const values of directives.values()) {
      expect(values).not.toContain("'unsafe-inline'");
      expect(values).not.toContain("'unsafe-eval'");
      expect(values.some((v) => v.startsWith('http') || v === '*')).toBe(false);
    }
  });
  it('the built renderer compiles no WebAssembly, which this policy forbids (no wasm-unsafe-eval): no .wasm asset, no instantiation', (ctx) => {
    // tiny-secp256k1 (libsecp256k1 as WebAssembly) is for main and its workers; a shared module that pulls
    // it into the renderer stops the whole page at load (seen once: the descriptor's musig() KeyAgg).
    const assets = join(ROOT, 'out/renderer/assets');
    if (!existsSync(assets)) return ctx.skip();
    const files = readdirSync(assets);
    expect(files.filter((f) => f.endsWith('.wasm'))).toEqual([]);
    for (const f of files.filter((x) => x.endsWith('.js'))) expect(readFileSync(join(assets, f), 'utf8'), f).not.toMatch(/WebAssembly\.(instantiate|compile)/);
  });

  it('npm run dev only: a style nonce is added to style-src and nothing else changes; no nonce, no change', () => {
    const nonce = 'AAAAAAAAAAAAAAAAAAAAAAAA';
    expect(contentSecurityPolicy()).toBe(CONTENT_SECURITY_POLICY);
    expect(contentSecurityPolicy(nonce)).toBe(CONTENT_SECURITY_POLICY.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`));
    expect(securityHeaders(nonce)['Content-Security-Policy']).toEqual([contentSecurityPolicy(nonce)]);
    expect(() => contentSecurityPolicy("x' 'unsafe-inline")).toThrow(/nonce/);
  });
  it('is sent as a header and matches the meta tag of the page', () => {
    expect(securityHeaders()['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
    const html = readFileSync(new URL('../../renderer/index.html', import.meta.url), 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html);
    expect(meta, 'renderer/index.html carries a CSP meta tag').not.toBeNull();
    const metaDirectives = new Map(meta![1]!.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values];
    }));
    for (const name of ['default-src', 'script-src', 'object-src', 'base-uri']) expect(metaDirectives.get(name)).toEqual(directives.get(name));
  });
});

describe('navigation, windows, permissions', () => {
  it('refuses navigation away from the app', () => {
    expect(allowNavigation('https://evil.example/', prod)).toBe(false);
    expect(allowNavigation('file:///etc/passwd', prod)).toBe(false);
    expect(allowNavigation('file:///opt/Spyglass/resources/app.asar/out/renderer/index.html', prod)).toBe(true);
    expect(allowNavigation('http://localhost:5173/#/settings', dev)).toBe(true);
    expect(allowNavigation('http://localhost:5174/', dev)).toBe(false);
    expect(allowNavigation('javascript:alert(1)', dev)).toBe(false);
    expect(allowNavigation('not a url', prod)).toBe(false);
  });
  it('never opens a window', () => {
    expect(windowOpenPolicy()).toEqual({ action: 'deny' });
  });
  it('denies every permission request but the camera alone, for the app itself (scanning a signer\'s QR code)', () => {
    for (const p of ['media', 'notifications', 'clipboard-read', 'geolocation', 'openExternal', 'fullscreen']) expect(allowPermission(p)).toBe(false);
    for (const p of ['notifications', 'clipboard-read', 'geolocation']) expect(allowPermission(p, { requestingUrl: prod.rendererUrl }, prod)).toBe(false);
    expect(allowPermission('media', { mediaTypes: ['video'], requestingUrl: prod.rendererUrl }, prod)).toBe(true);
    expect(allowPermission('media', { mediaTypes: ['video', 'audio'], requestingUrl: prod.rendererUrl }, prod)).toBe(false);
    expect(allowPermission('media', { mediaTypes: ['audio'], requestingUrl: prod.rendererUrl }, prod)).toBe(false);
    expect(allowPermission('media', { mediaTypes: ['video'], requestingUrl: 'https://evil.example/' }, prod)).toBe(false);
    expect(allowPermission('media', { mediaTypes: ['video'] }, prod)).toBe(false);
  });
  it('accepts IPC only from the main frame of the app', () => {
    expect(isTrustedSender({ frameUrl: prod.rendererUrl, isMainFrame: true }, prod)).toBe(true);
    expect(isTrustedSender({ frameUrl: prod.rendererUrl, isMainFrame: false }, prod)).toBe(false);
    expect(isTrustedSender({ frameUrl: 'https://evil.example/', isMainFrame: true }, prod)).toBe(false);
    expect(isTrustedSender({ frameUrl: null, isMainFrame: true }, prod)).toBe(false);
  });
});

describe('the shell applies these settings', () => {
  // electron/main/index.ts cannot run here (no Electron binary); check that it wires every policy.
  const src = readFileSync(new URL('../../electron/main/index.ts', import.meta.url), 'utf8');
  it.each([
    ['secureWebPreferences(', 'web preferences'],
    ["'will-navigate'", 'navigation guard'],
    ['setWindowOpenHandler', 'window.open guard'],
    ['setPermissionRequestHandler', 'permission requests'],
    ['setPermissionCheckHandler', 'permission checks'],
    ['isTrustedSender(', 'IPC sender check'],
    ['app.enableSandbox()', 'sandbox for all renderers'],
    ['onBeforeRequest', 'no remote content'],
  ])('uses %s (%s)', (needle) => {
    expect(src).toContain(needle);
  });
});
