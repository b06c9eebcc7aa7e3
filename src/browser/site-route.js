/**
 * Serving a site to Chromium: the pages pagediet opens in the build's browser
 * load from one made-up origin, and every request a context makes there is
 * answered from the site model (or from bytes a proof serves in place of a
 * file's), never from the network or the disk.
 */
import { mimeType } from '../site/mime.js';

/** The origin every page of the site is opened at (`.invalid` never resolves, RFC 6761). */
export const ORIGIN = 'http://pagediet.invalid';

/**
 * The site path a request asks for: a folder's index.html for a folder.
 * @param {URL} url
 * @param {(path: string) => boolean} exists whether the site (or what is served in its place) has that path
 * @returns {string | null}
 */
export function sitePathOf(url, exists) {
  let wanted;
  try {
    wanted = decodeURIComponent(url.pathname).slice(1);
  } catch {
    return null;
  }
  for (const candidate of [wanted, `${wanted}${wanted === '' || wanted.endsWith('/') ? '' : '/'}index.html`]) if (exists(candidate)) return candidate;
  return null;
}

/**
 * @typedef {object} SiteRouteOptions
 * @property {(path: string) => Buffer | undefined} [instead] bytes to serve in place of a site path's (a change measured before it is written, or a file the site does not have yet)
 * @property {(request: import('playwright-core').Request, url: URL) => boolean} [stays] false for a request the page must not follow: answered 204 No Content, on which a browser stays where it is
 * @property {(path: string) => void} [served] told of each site path a request asks for
 */

/**
 * Answers every request of a context from the site: another origin is
 * aborted, a path neither the site nor `instead` has is a 404, and every
 * other request is answered (one left open would hold the page's load and
 * its fonts), a file that cannot be read with a 404.
 * @param {import('playwright-core').BrowserContext} context
 * @param {import('../site/site.js').Site} site
 * @param {SiteRouteOptions} [options]
 */
export async function routeSite(context, site, { instead = () => undefined, stays = () => true, served = () => {} } = {}) {
  const exists = (/** @type {string} */ path) => site.files.has(path) || instead(path) !== undefined;
  await context.route('**/*', async (route) => {
    const request = route.request();
    const url = new URL(request.url());
    if (url.origin !== ORIGIN) return route.abort();
    if (!stays(request, url)) return route.fulfill({ status: 204, body: '' });
    const found = sitePathOf(url, exists);
    if (!found) return route.fulfill({ status: 404, body: '' });
    served(found);
    const body = instead(found) ?? await site.read(found).catch(() => null);
    if (!body) return route.fulfill({ status: 404, body: '' });
    return route.fulfill({ status: 200, body, headers: { 'content-type': mimeType(found) } });
  });
}
