/**
 * A pool thread keeps what plans share: the texts and symbols it rendered
 * (src/text-images/estimate.js) and its OCR reader (src/text-images/ocr.js).
 * A plan must not depend on what the thread did before it, and a process
 * that read text must still end by itself once the reader has been idle.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { textImagePlan } from '../src/text-images/plan.js';
import { drawText } from './helpers/text-image.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const PLAN_MODULE = path.join(ROOT, 'src/text-images/plan.js');

/** How the words are drawn: dark blue bold sans on white. */
const LETTERING = /** @type {const} */ ({ family: 'DejaVu Sans', weight: 'bold', style: 'normal', fg: '#003366', bg: '#ffffff' });

/** Options as the pass gives them, OCR on. */
const OPTIONS = { ocr: true, agreement: 0.6, minOcrConfidence: 30 };

/** The cases: read by OCR (no ALT), matched to its ALT, and a symbol. */
async function cases() {
  return [
    { name: 'OCR', bytes: await drawText({ ...LETTERING, text: 'Download', size: 18 }), texts: [] },
    { name: 'ALT', bytes: await drawText({ ...LETTERING, text: 'Latest news', size: 14 }), texts: ['Latest news'] },
    { name: 'symbol', bytes: await fs.readFile(path.join(ROOT, 'fixtures/microscape/images/bullet.gif')), texts: [] },
  ];
}

/** A plan made in a process of its own, which has rendered nothing before; it must end by itself. */
function planInFreshProcess(/** @type {Uint8Array} */ bytes, /** @type {string[]} */ texts) {
  const script = `import { textImagePlan } from ${JSON.stringify(PLAN_MODULE)};
const input = JSON.parse(process.argv[1]);
const plan = await textImagePlan({ bytes: Buffer.from(input.bytes, 'base64'), options: input.options });
process.stdout.write(JSON.stringify(plan));`;
  const input = JSON.stringify({ bytes: Buffer.from(bytes).toString('base64'), options: { ...OPTIONS, texts } });
  // No exit call in the script: the process ends only if nothing (such as the OCR reader's thread) holds it open.
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, input], { encoding: 'utf8', timeout: 60_000 }));
}

describe('what a thread keeps between plans', () => {
  it('gives the same plan the first time, again after other plans, and in a fresh process that then ends by itself', async () => {
    const all = await cases();
    const first = [];
    for (const c of all) first.push(await textImagePlan({ bytes: c.bytes, options: { ...OPTIONS, texts: c.texts } }));
    expect(first.map((p) => [p.status, /** @type {{ source?: string }} */ (p).source])).toEqual([['text', 'ocr'], ['text', 'alt'], ['symbol', 'shape']]);
    expect(/** @type {{ ocr: { text: string } }} */ (first[0]).ocr.text).toBe('Download');
    // Again in reverse order: every render now comes from the thread's memory, and the reader is the same.
    const again = [];
    for (const c of [...all].reverse()) again.unshift(await textImagePlan({ bytes: c.bytes, options: { ...OPTIONS, texts: c.texts } }));
    expect(again).toEqual(first);
    for (const [i, c] of all.entries()) expect(planInFreshProcess(c.bytes, c.texts)).toEqual(JSON.parse(JSON.stringify(first[i])));
  }, 120_000);
});
