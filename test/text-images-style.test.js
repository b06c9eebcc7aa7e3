/**
 * Style estimation and text on images of text drawn here (SVG text through
 * sharp, with the DejaVu fonts): three families, sizes from 10 to 40 px, bold
 * and italic, light on dark and dark on light, with and without ALT. The
 * estimate must get the size within 2 px and the weight, slant and family
 * right; the text must be exact when ALT is there, and OCR's reading is
 * reported (and held to a small edit distance) when it is not.
 */
import { describe, expect, it } from 'vitest';
import { textImagePlan } from '../src/text-images/plan.js';
import { drawText } from './helpers/text-image.js';

/**
 * @typedef {{ text: string, family: string, generic: string, size: number, weight: 'normal' | 'bold', style: 'normal' | 'italic', fg: string, bg: string, alt: boolean }} Case
 */

/** @type {Case[]} */
const CASES = [
  { text: 'Products', family: 'DejaVu Sans', generic: 'sans-serif', size: 10, weight: 'bold', style: 'normal', fg: '#ffffff', bg: '#000000', alt: true },
  { text: 'Latest news', family: 'DejaVu Serif', generic: 'serif', size: 12, weight: 'normal', style: 'normal', fg: '#003366', bg: '#ffffff', alt: true },
  { text: 'Download', family: 'DejaVu Sans Mono', generic: 'monospace', size: 14, weight: 'bold', style: 'normal', fg: '#ffcc00', bg: '#003366', alt: false },
  { text: 'solutions', family: 'DejaVu Sans', generic: 'sans-serif', size: 20, weight: 'bold', style: 'italic', fg: '#ffffff', bg: '#ffcc00', alt: true },
  { text: 'Welcome home', family: 'DejaVu Serif', generic: 'serif', size: 24, weight: 'bold', style: 'italic', fg: '#990000', bg: '#ffffff', alt: false },
  { text: 'Contact', family: 'DejaVu Sans Mono', generic: 'monospace', size: 18, weight: 'normal', style: 'italic', fg: '#000000', bg: '#ffff99', alt: true },
  { text: 'Search the site', family: 'DejaVu Sans', generic: 'sans-serif', size: 16, weight: 'normal', style: 'normal', fg: '#ffffff', bg: '#336699', alt: false },
  { text: 'Annual Report', family: 'DejaVu Serif', generic: 'serif', size: 32, weight: 'normal', style: 'italic', fg: '#ffffff', bg: '#000000', alt: true },
  { text: 'Headlines', family: 'DejaVu Sans', generic: 'sans-serif', size: 40, weight: 'bold', style: 'normal', fg: '#003399', bg: '#ffffff', alt: false },
  { text: 'Support', family: 'DejaVu Serif', generic: 'serif', size: 28, weight: 'bold', style: 'normal', fg: '#ffffff', bg: '#006633', alt: true },
];

/** Levenshtein distance. @param {string} a @param {string} b */
function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}

describe('text-images style estimate', () => {
  it.each(CASES.map((c) => [`${c.family} ${c.weight} ${c.style} ${c.size}px ${c.alt ? 'with' : 'without'} ALT: ${c.text}`, c]))('%s', async (_, c) => {
    const bytes = await drawText(c);
    const plan = await textImagePlan({ bytes, options: { texts: c.alt ? [c.text] : [], ocr: true, agreement: 0.6, minOcrConfidence: 30 } });
    expect(plan.status).toBe('text');
    if (plan.status !== 'text') return;
    const best = plan.estimates[0];
    expect(Math.abs(best.size - c.size)).toBeLessThanOrEqual(2);
    expect([best.weight, best.style, best.family]).toEqual([c.weight, c.style, c.generic]);
    if (c.alt) {
      expect(plan.source).toBe('alt');
      expect(best.text).toBe(c.text);
    } else {
      expect(plan.source).toBe('ocr');
      const errors = distance(/** @type {{ text: string }} */ (plan.ocr).text, c.text);
      console.log(`OCR ${JSON.stringify(c.text)} → ${JSON.stringify(plan.ocr?.text)} (confidence ${plan.ocr?.confidence}, ${errors} character errors)`);
      expect(errors).toBeLessThanOrEqual(1);
    }
  }, 60_000);

  it('keeps an image whose ALT names other words when OCR is off', async () => {
    const bytes = await drawText(CASES[3]);
    const plan = await textImagePlan({ bytes, options: { texts: ['Click here'], ocr: false, agreement: 0.6, minOcrConfidence: 30 } });
    expect(plan.status).toBe('kept');
    expect(plan.status === 'kept' && plan.reason).toMatch(/^ALT\/TITLE "Click here" does not match the pixels \(0\.\d\d\), and OCR is off$/);
  });
});
