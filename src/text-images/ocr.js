/**
 * Reading the words of a text image with tesseract.js, for images whose ALT
 * and TITLE are missing or do not match their pixels. The English model comes
 * from the @tesseract.js-data/eng package in node_modules, read as a local
 * file: nothing is downloaded, and nothing is cached in the working directory.
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import sharp from 'sharp';

/**
 * @typedef {import('./pixels.js').Coverage} Coverage
 * @typedef {{ text: string, confidence: number }} OcrResult confidence 0-100, tesseract's mean word confidence
 */

const require = createRequire(import.meta.url);

/** The directory holding eng.traineddata.gz, the LSTM-only ("best_int") model tesseract.js loads by default. */
export function englishDataDir() {
  return path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

/** Small images are scaled up until their ink is about this high: tesseract reads large letters best. */
const TARGET_INK_HEIGHT = 48;

/**
 * A reader is kept this long after its last use. Starting one (a worker
 * thread that loads the model) takes about 300 ms, as long as reading a word;
 * a site's text images come in a batch, so one reader serves them all.
 */
const READER_IDLE_MS = 2000;

/** @type {Promise<import('tesseract.js').Worker> | null} */
let reader = null;
let readsUnderway = 0;
/** @type {NodeJS.Timeout | undefined} */
let idleTimer;

/**
 * The engine's thread, started quiet. tesseract's C++ core and Leptonica print
 * their notes ("Image too small to scale!!", "Line cannot be recognized!!",
 * "Warning: Invalid resolution") through emscripten's print and printErr,
 * which are the thread's console.log and console.error, and Node forwards a
 * worker thread's output to the process's stdout and stderr, in the middle of
 * the progress bar and the summary. tesseract.js offers no option for this
 * (its `logger` and `errorHandler` are about jobs, not the engine's output,
 * and it starts its Worker without stdio options), so the thread's script is
 * this one: it gives the thread a console that writes nowhere, then loads
 * tesseract.js's own worker script; the core binds its print functions to
 * that console when it starts. What the notes mean reaches the caller as the
 * result: no text, confidence 0. A data: URL keeps the script here, next to
 * the only code that starts it.
 */
const QUIET_ENGINE = new URL(`data:text/javascript,${encodeURIComponent(`
import { Console } from 'node:console';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
const nowhere = new Writable({ write(chunk, encoding, done) { done(); } });
globalThis.console = new Console({ stdout: nowhere, stderr: nowhere });
createRequire(${JSON.stringify(import.meta.url)})('tesseract.js/src/worker-script/node/index.js');
`)}`);

/** The thread's reader, started when first needed: English, LSTM only, one line of text. */
function englishReader() {
  reader ??= (async () => {
    const { createWorker, OEM, PSM } = await import('tesseract.js');
    const worker = await createWorker('eng', OEM.LSTM_ONLY, {
      langPath: englishDataDir(),
      cacheMethod: 'none',
      gzip: true,
      // tesseract.js passes workerPath to new Worker() as it is; its type says string, Node takes a URL too.
      workerPath: /** @type {string} */ (/** @type {unknown} */ (QUIET_ENGINE)),
      // A failed job rejects its promise (readText throws); without a handler tesseract.js would also throw it, uncaught, in this thread.
      errorHandler: () => {},
    });
    await worker.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_LINE, user_defined_dpi: '300' });
    return worker;
  })();
  return reader;
}

/** Stops the reader (its thread would otherwise keep the process alive). */
function stopReader() {
  const stopping = reader;
  reader = null;
  stopping?.then((worker) => worker.terminate(), () => {});
}

/**
 * Reads one line of text from a coverage (ink 1, background 0).
 * @param {Coverage} coverage
 * @param {number} inkHeight height of the ink's box, px
 * @returns {Promise<OcrResult>}
 */
export async function readText(coverage, inkHeight) {
  const png = await linePicture(coverage, inkHeight);
  clearTimeout(idleTimer);
  readsUnderway++;
  try {
    const { data } = await (await englishReader()).recognize(png);
    return { text: data.text.replace(/\s+/g, ' ').trim(), confidence: Math.round(data.confidence) };
  } catch (error) {
    // A reader that failed once is not trusted again: the next read starts a new one.
    stopReader();
    throw error;
  } finally {
    if (--readsUnderway === 0) idleTimer = setTimeout(stopReader, READER_IDLE_MS).unref();
  }
}

/**
 * The picture tesseract reads for a coverage: dark ink on white, larger, with
 * a margin, the form tesseract expects.
 * @param {Coverage} coverage
 * @param {number} inkHeight height of the ink's box, px
 * @returns {Promise<Buffer>} PNG
 */
export async function linePicture(coverage, inkHeight) {
  const scale = Math.max(1, Math.min(10, Math.round(TARGET_INK_HEIGHT / Math.max(1, inkHeight))));
  const grey = Buffer.alloc(coverage.width * coverage.height);
  for (let i = 0; i < grey.length; i++) grey[i] = Math.round(255 * (1 - coverage.data[i]));
  return sharp(grey, { raw: { width: coverage.width, height: coverage.height, channels: 1 } })
    .resize(coverage.width * scale, coverage.height * scale, { kernel: 'lanczos3' })
    .extend({ top: 20, bottom: 20, left: 20, right: 20, background: '#ffffff' })
    .png()
    .toBuffer();
}
