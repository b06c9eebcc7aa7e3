// The OCR engine says nothing on the terminal. tesseract's C++ core prints
// through emscripten's print/printErr (console.log/console.error) inside the
// engine's worker thread, and Node forwards a worker's output to the
// process's stdout and stderr: only a child process shows what reaches them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const OCR = new URL('../src/text-images/ocr.js', import.meta.url).href;

/**
 * A 1x36 px bar whose ink is said to be 1 px high: scaled up tenfold, tesseract
 * finds a line too thin to read and says "Image too small to scale!!" and
 * "Line cannot be recognized!!" (tesseract.js 7, eng best_int).
 */
const IMAGE = 'const coverage = { width: 1, height: 36, data: new Float32Array(36).fill(1) }; const inkHeight = 1;';

/** Runs an ES module in a child node process, in the project's folder (for its node_modules). @param {string} code */
async function child(code) {
  const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: new URL('..', import.meta.url).pathname, timeout: 60_000 });
  return { stdout, stderr };
}

describe('OCR engine output', () => {
  it('the image makes the engine complain when its worker is started as tesseract.js starts it', async () => {
    // The premise of the next test: the same picture, read by a worker with tesseract.js's defaults, prints.
    const { stdout, stderr } = await child(`
      import { createWorker, OEM, PSM } from 'tesseract.js';
      import { englishDataDir, linePicture } from ${JSON.stringify(OCR)};
      ${IMAGE}
      const worker = await createWorker('eng', OEM.LSTM_ONLY, { langPath: englishDataDir(), cacheMethod: 'none', gzip: true });
      await worker.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE, user_defined_dpi: '300' });
      await worker.recognize(await linePicture(coverage, inkHeight));
      await worker.terminate();
    `);
    expect(`${stdout}${stderr}`).toMatch(/Image too small to scale!!/);
  }, 60_000);

  it('nothing the engine prints reaches stdout or stderr; its result is returned', async () => {
    const { stdout, stderr } = await child(`
      import { readText } from ${JSON.stringify(OCR)};
      ${IMAGE}
      const result = await readText(coverage, inkHeight);
      process.stdout.write(JSON.stringify(result) + '\\n');
      // Wait for anything a worker thread still has in flight to the process's streams.
      await new Promise((resolve) => setTimeout(resolve, 500));
    `);
    expect(stderr).toBe('');
    expect(stdout).toBe('{"text":"","confidence":0}\n');
  }, 60_000);
});
