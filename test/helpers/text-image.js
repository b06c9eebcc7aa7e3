/**
 * Images of one word drawn here (SVG text through sharp, in the fonts Debian
 * installs), for the text-image plan tests.
 */
import sharp from 'sharp';

/**
 * @typedef {{ text: string, family: string, size: number, weight: 'normal' | 'bold', style: 'normal' | 'italic', fg: string, bg: string }} Lettering
 */

/**
 * A PNG of the text on its background, with room around it.
 * @param {Lettering} l
 */
export function drawText(l) {
  const width = Math.round(l.text.length * l.size * 0.75 + 16);
  const height = Math.round(l.size * 1.6);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${l.bg}"/><text x="6" y="${Math.round(height * 0.72)}" font-family="${l.family}" font-size="${l.size}" font-weight="${l.weight}" font-style="${l.style}" fill="${l.fg}">${l.text}</text></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
