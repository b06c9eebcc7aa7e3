import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { REFERENCE_KINDS } from '../src/site/reference-kinds.js';
import { tempDir } from './helpers/tmp.js';

/**
 * Counts the references of a 1990s page with regular expressions, as a check
 * that does not share code with the site model.
 */
function countByRegex(html) {
  const tags = (name) => [...html.matchAll(new RegExp(`<${name}\\b[^>]*>`, 'gi'))].map((m) => m[0]);
  return {
    img: tags('img').filter((t) => /\bsrc\s*=/i.test(t)).length,
    'input-image': tags('input').filter((t) => /type\s*=\s*"?image/i.test(t)).length,
    background: [...tags('body'), ...tags('table'), ...tags('tr'), ...tags('td'), ...tags('th')].filter((t) => /\bbackground\s*=/i.test(t)).length,
    anchor: [...tags('a'), ...tags('area')].filter((t) => /\bhref\s*=/i.test(t)).length,
  };
}

describe.each([
  ['microscape', { anchor: 108, background: 1, img: 137, 'input-image': 1 }, 42, 2],
  ['ricochet', { anchor: 64, img: 77, 'input-image': 1 }, 30, 0],
])('fixtures/%s references', (name, byKind, images, extensionless) => {
  it('finds every reference by kind, and every subresource resolves to one of the fixture\'s images', async () => {
    const summary = await build({ input: `fixtures/${name}`, output: path.join(await tempDir(), 'out'), passes: [] });
    const html = (await fs.readFile(`fixtures/${name}/index.html`)).toString('latin1');
    expect(summary.referencesByKind).toEqual(byKind);
    expect(summary.referencesByKind).toEqual(Object.fromEntries(Object.entries(countByRegex(html)).filter(([, n]) => n > 0)));

    const subresources = summary.references.filter((r) => REFERENCE_KINDS[r.kind].subresource);
    expect(subresources.filter((r) => r.status !== 'ok')).toEqual([]);
    const manifest = JSON.parse(await fs.readFile(`fixtures/${name}.json`, 'utf8'));
    const expected = manifest.files.filter((f) => f.subresource).map((f) => f.path).sort();
    const targets = [...new Set(subresources.map((r) => r.target))].sort();
    expect(targets).toHaveLength(images);
    expect(targets).toEqual(expected);
    expect(summary.references.filter((r) => r.via === 'extensionless').map((r) => r.target).filter((t, i, all) => all.indexOf(t) === i)).toHaveLength(extensionless);
    expect(summary.totals.requestsBefore).toBe(images + 1);
    // Every reference's byte range holds its URL as written.
    for (const r of summary.references) {
      const raw = html.slice(r.start, r.end);
      expect(raw.replace(/&amp;/g, '&')).toBe(r.url);
    }
  });
});
