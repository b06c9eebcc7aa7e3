/**
 * The compression job the worker pool runs: one file, one coding. The
 * pass decides what to keep; the job only encodes, so its cached result
 * does not depend on thresholds.
 */
import { encode } from './encodings.js';

/**
 * @param {{ bytes: Uint8Array, options: { encoding: import('./encodings.js').Encoding } & Partial<import('./encodings.js').EncodeOptions> }} input
 * @returns {Promise<{ status: 'encoded', bytes: Buffer, detail: string } | { status: 'failed', reason: string }>}
 */
export async function compressText({ bytes, options }) {
  try {
    const { encoding, ...rest } = options;
    const out = await encode(encoding, bytes, rest);
    return { status: 'encoded', ...out };
  } catch (error) {
    return { status: 'failed', reason: /** @type {Error} */ (error).message.split('\n')[0] };
  }
}
