/**
 * Large title images of text (scripts/fixtures/big-titles.js): drawing their
 * candidate styles many lines per call asked cairo for surfaces over its
 * 32,767 px limit, and the error ended the whole build. The build finishes;
 * the titles it can compare are replaced, and the one too wide for any
 * drawing is kept as it is, with one warning.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/build/pipeline.js';
import { TEXT_FACES, TextDrawError, drawAlone, renderTexts } from '../src/text-images/estimate.js';
import { makeBigTitles } from '../scripts/fixtures/big-titles.js';
import { chromiumTest } from './helpers/chromium.js';
import { tempDir } from './helpers/tmp.js';

describe('texts larger than a drawing may be', () => {
  it('draws 72 lines of 150 to 300 px titles, splitting the call where one drawing would be too large', async () => {
    const requests = [150, 200, 300].flatMap((size) => TEXT_FACES.map((face) => ({ text: 'Departments', face, size })));
    const drawn = await renderTexts(requests);
    expect(drawn).toHaveLength(72);
    // Each line as drawn alone, to the pixel (the 300 px ones in a call of their own size class).
    for (const i of [0, 23, 24, 47, 48, 71]) {
      const alone = await drawAlone(requests[i]);
      expect([drawn[i].width, drawn[i].height]).toEqual([alone.width, alone.height]);
      expect(Buffer.from(drawn[i].data.buffer).equals(Buffer.from(alone.data.buffer))).toBe(true);
    }
  }, 120_000);

  it('refuses a text wider than a drawing may be, before asking cairo', async () => {
    await expect(drawAlone({ text: 'W'.repeat(200), face: TEXT_FACES[0], size: 400 })).rejects.toThrow(TextDrawError);
    await expect(drawAlone({ text: 'W'.repeat(200), face: TEXT_FACES[0], size: 400 })).rejects.toThrow('its text at 400 px would be about 100400 px wide, over the 16384 px a drawing may be');
  });
});

describe('a site of large title images', () => {
  /** @type {string} */
  let input;
  beforeAll(async () => {
    input = await tempDir();
    await makeBigTitles(input);
  }, 60_000);

  chromiumTest('builds: the titles are replaced, the one too wide to draw is kept with one warning', async () => {
    const output = path.join(await tempDir(), 'out');
    const summary = await build({ input, output, only: ['text-images'], cache: false, configs: false });
    const pass = /** @type {import('../src/build/pipeline.js').PassReport} */ (summary.passes.find((p) => p.name === 'text-images'));
    const actions = Object.fromEntries(pass.decisions.map((d) => [d.file, d.action]));
    expect(actions).toEqual({
      'img/welcome.png': 'changed',
      'img/departments.png': 'changed',
      'img/curriculum.png': 'changed',
      'img/news.png': 'changed',
      'img/illinois.png': 'kept',
    });
    expect(pass.decisions.find((d) => d.file === 'img/illinois.png')?.reason).toBe('its text cannot be drawn to compare: its text at 289 px would be about 19436 px wide, over the 16384 px a drawing may be');
    expect(summary.warnings.map((w) => `${w.file} ${w.code} ${w.severity}`)).toEqual(['img/illinois.png text-undrawable warning']);
    // Kept means the same bytes, still referenced from the page.
    expect((await readFile(path.join(output, 'img/illinois.png'))).equals(await readFile(path.join(input, 'img/illinois.png')))).toBe(true);
    expect(await readFile(path.join(output, 'index.html'), 'utf8')).toContain('<img src="img/illinois.png"');
  }, 300_000);
});
