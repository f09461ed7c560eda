// Saves text as a file the way a page can: a Blob and a temporary <a download>. In Electron the
// download goes through the session's save dialog; in a browser, to the downloads folder.
export function downloadText(filename: string, text: string, mime: string): void {
  downloadBlob(filename, new Blob([text], { type: mime }));
}

/** Saves bytes exactly as given (a binary .psbt): a Blob of the Uint8Array, no text encoding on the way. */
export function downloadBytes(filename: string, bytes: Uint8Array, mime = 'application/octet-stream'): void {
  // Copied into a plain ArrayBuffer (Blob refuses views of a SharedArrayBuffer); exactly bytes.length bytes.
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  downloadBlob(filename, new Blob([copy], { type: mime }));
}

function downloadBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoke after the click has been handled (revoking at once can cancel the download).
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Reads a picked or dropped file's bytes. */
export async function readFileBytes(file: File): Promise<Uint8Array> {
  try {
    return new Uint8Array(await file.arrayBuffer());
  } catch (e) {
    throw new Error(`“${file.name}” could not be read${e instanceof Error && e.message ? `: ${e.message}` : ''}`);
  }
}

/** Reads a picked file as UTF-8 text. */
export function readFileText(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => reject(new Error(`“${file.name}” could not be read${reader.error ? `: ${reader.error.message}` : ''}`));
    reader.readAsText(file);
  });
}

/**
 * Copies text. The async clipboard first; when it is refused (Electron denies permission requests),
 * a hidden textarea and execCommand('copy'), which needs only the click that called this.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.className = 'offscreen';
    const active = document.activeElement as HTMLElement | null;
    document.body.appendChild(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    ta.remove();
    active?.focus();
    return ok;
  }
}
