/**
 * Precompression, last, on final bytes: beside every compressible file
 * (text, SVG, icons, uncompressed fonts) a `.br` (brotli quality 11, or
 * --brotli-quality: 10 takes a third of the time for 2% more bytes), a
 * `.gz` (libdeflate level 12, or zopfli with --gzip zopfli: the .gz serves
 * the few clients without brotli, so its last percent is not worth a
 * tenfold time or more by default), and a `.zst` with --zstd where node can
 * write zstd, for servers to send without compressing anything themselves. A file under
 * 256 bytes is skipped, and so is a sidecar that saves under 5%: tiny
 * responses cost more in CPU and Vary-split caches than they save. Every
 * sidecar is decoded again and compared byte for byte with its source, and
 * gets its source's modification time (nginx derives the .gz's ETag and
 * Last-Modified from it). A sidecar name already taken in the input is never
 * overwritten. Encoding runs in the worker pool, cached by content hash.
 */
import path from 'node:path';
import { ENCODINGS, SIDECAR_EXTENSIONS, decode, isCompressible } from '../compress/encodings.js';
import { DEFAULT_GZIP_ITERATIONS } from '../compress/gzip.js';
import { zstdAvailable, zstdUnavailableReason } from '../compress/zstd.js';
import { writeBuildConfigs } from '../configs/index.js';
import { boolean, folderOrOff, oneOf, wholeNumber } from '../options/kinds.js';
import { option, optional } from '../options/table.js';
import { forEachOrdered } from '../util/ordered.js';

const options = {
  gzip: option(oneOf(/** @type {const} */ (['libdeflate', 'zopfli', 'zlib'])), 'libdeflate', 'encoder for the precompressed .gz files: libdeflate (level 12, quick), zopfli (about 1% smaller, tens of times slower) or zlib (level 9)'),
  gzipIterations: option(wholeNumber(), DEFAULT_GZIP_ITERATIONS, 'zopfli iterations for the .gz files with --gzip zopfli (the zopfli command\'s --i)'),
  brotliQuality: option(wholeNumber({ max: 11 }), 11, 'brotli quality of the .br files: 11 is the smallest; 10 takes about a third of the time for about 2% more bytes of HTML'),
  zstd: option(boolean, false, 'also write .zst files beside the .br and .gz (needs node 22.15 or newer: otherwise a warning)'),
  precompressMinBytes: option(wholeNumber(), 256, 'files smaller than this are not compressed'),
  precompressMinSaving: option(wholeNumber({ max: 100 }), 5, 'a sidecar that saves less than this percentage is not written'),
  configs: optional(folderOrOff, 'where the server configs go (default: <output>-configs/, beside the output, never inside it); --no-configs writes none'),
};

/** @type {import('../build/pass.js').Pass<typeof options>} */
export default {
  name: 'precompress',
  description: 'text files precompressed beside themselves: .br (brotli 11, or --brotli-quality), .gz (libdeflate 12, or zopfli), .zst with --zstd',
  options,
  async run(site, ctx) {
    const o = ctx.options;
    const gzipMethod = o.gzip;
    const iterations = o.gzipIterations;
    const brotliQuality = o.brotliQuality;
    const minBytes = o.precompressMinBytes;
    const minSaving = o.precompressMinSaving;
    if (o.zstd && !zstdAvailable()) ctx.warn('', 'zstd-unavailable', zstdUnavailableReason());
    const encodings = ENCODINGS.filter((e) => e !== 'zstd' || (o.zstd && zstdAvailable()));
    // Names taken before this pass adds anything: a sidecar the input already has is never replaced.
    const taken = new Set([...site.files.keys(), ...site.directories]);
    const candidates = [...site.files.values()].filter((f) => isCompressible(f.path));
    let done = 0;
    // A window of files at a time (ordered.js): their bytes and sidecars are not all in memory at once.
    await forEachOrdered(candidates, async (file) => {
      const bytes = await site.read(file.path).catch(() => null);
      if (!bytes) return null;
      if (bytes.length < Math.max(1, minBytes)) return { file, bytes, encoded: null };
      const encoded = await Promise.all(encodings.map(async (encoding) => {
        const sidecar = `${file.path}${SIDECAR_EXTENSIONS[encoding]}`;
        if (taken.has(sidecar)) return { encoding, sidecar, outcome: /** @type {const} */ ('taken') };
        // Each coding's key holds only its own settings: changing gzip's leaves the cached .br files valid.
        const settings = encoding === 'gzip' ? { gzip: gzipMethod, ...(gzipMethod === 'zopfli' && { iterations }) } : encoding === 'br' && brotliQuality !== 11 ? { quality: brotliQuality } : {};
        const result = await ctx.compute('compressText', bytes, { encoding, ...settings });
        return { encoding, sidecar, outcome: /** @type {const} */ ('encoded'), result };
      }));
      return { file, bytes, encoded };
    }, async (entry) => {
      if (!entry) return;
      const { file, bytes, encoded } = entry;
      ctx.progress(file.path, { done: ++done, total: candidates.length });
      if (!encoded) {
        ctx.decide({ file: file.path, action: 'skipped', reason: bytes.length === 0 ? 'empty' : `under ${minBytes} B (${bytes.length} B)` });
        return;
      }
      /** @type {string[]} */
      const made = [];
      /** @type {string[]} */
      const small = [];
      /** @type {string[]} */
      const present = [];
      /** @type {string[]} the codings that failed: one warning for the file */
      const failed = [];
      for (const e of encoded) {
        if (e.outcome === 'taken') {
          ctx.warn(file.path, 'sidecar-exists', `${e.sidecar} is already in the input: kept as it is (it may not match ${file.path})`);
          present.push(e.sidecar);
          continue;
        }
        if (e.result.status !== 'encoded') {
          failed.push(`${e.encoding}: ${e.result.reason}`);
          continue;
        }
        const out = /** @type {Buffer} */ (e.result.bytes);
        if (!sameBytes(() => decode(e.encoding, out), bytes)) {
          ctx.warn(file.path, 'compress-mismatch', `${e.encoding} output does not decode to the file: not written`);
          continue;
        }
        const saving = ((bytes.length - out.length) / bytes.length) * 100;
        if (saving < minSaving) {
          small.push(`${e.encoding} ${out.length} B, ${saving.toFixed(1)}%`);
          continue;
        }
        await site.add(e.sidecar, out, file.mtimeMs);
        ctx.touched(e.sidecar, bytes.length, out.length);
        ctx.measure({ file: file.path, name: e.encoding, before: bytes.length, after: out.length });
        made.push(`${e.encoding} ${out.length} B (-${saving.toFixed(1)}%, ${e.result.detail})`);
      }
      if (failed.length) ctx.warn(file.path, 'compress-failed', failed.join('; '));
      const notes = [
        ...(small.length ? [`saves under ${minSaving}% (${bytes.length} B; ${small.join('; ')})`] : []),
        ...(present.length ? [`sidecar already in the input (${present.join(', ')})`] : []),
      ];
      if (made.length) ctx.decide({ file: file.path, action: 'changed', reason: `${bytes.length} B -> ${made.join(', ')}${notes.length ? `; ${notes.join('; ')}` : ''}` });
      else ctx.decide({ file: file.path, action: 'kept', reason: notes.join('; ') || 'no sidecar written' });
    });
  },
  // The server configs serve the sidecars, so they come with precompression. They go beside the output
  // (<output>-configs/, or the folder named by configs), never into the deployed site unless so named.
  async artifacts(site, { options: o, outputDir, shard, warn }) {
    if (o.configs === false) return [];
    // A config lists files of the whole site; a shard knows its slice only.
    if (shard) {
      warn('', 'configs-shard', 'a shard does not write the server configs: once every shard is in the output, run `pagediet configs <output> --server <name>`');
      return [];
    }
    return writeBuildConfigs(site, { outputDir, dir: o.configs ? path.resolve(o.configs) : undefined });
  },
};

/**
 * Whether decoding gives exactly the source; a decoder error counts as no.
 * @param {() => Buffer} decoded
 * @param {Buffer} source
 */
function sameBytes(decoded, source) {
  try {
    return decoded().equals(source);
  } catch {
    return false;
  }
}
