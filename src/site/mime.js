/**
 * File types by extension: enough to classify a static site's files and to
 * send the right Content-Type. Unknown extensions are application/octet-stream.
 */

/** @type {Record<string, string>} */
export const MIME_TYPES = {
  html: 'text/html', htm: 'text/html', shtml: 'text/html', xhtml: 'application/xhtml+xml',
  css: 'text/css', js: 'text/javascript', mjs: 'text/javascript', json: 'application/json',
  map: 'application/json', webmanifest: 'application/manifest+json', xml: 'application/xml',
  txt: 'text/plain', csv: 'text/csv', md: 'text/markdown', svg: 'image/svg+xml',
  gif: 'image/gif', png: 'image/png', apng: 'image/apng', jpg: 'image/jpeg', jpeg: 'image/jpeg',
  webp: 'image/webp', avif: 'image/avif', ico: 'image/x-icon', bmp: 'image/bmp',
  woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject', pdf: 'application/pdf', zip: 'application/zip',
  mp4: 'video/mp4', webm: 'video/webm', mp3: 'audio/mpeg', ogg: 'audio/ogg', wasm: 'application/wasm',
};

/** @param {string} filePath */
export function extensionOf(filePath) {
  const base = filePath.slice(filePath.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/** @param {string} filePath */
export function mimeType(filePath) {
  return MIME_TYPES[extensionOf(filePath)] ?? 'application/octet-stream';
}

/** @param {string} filePath */
export function isHtmlPath(filePath) {
  return ['html', 'htm', 'shtml', 'xhtml'].includes(extensionOf(filePath));
}
