// Generated from the option table (src/options/table.js and each pass's options) by `npm run options`: do not edit.

/**
 * @typedef {object} BuildOptions the options of a build, each optional; `pagediet build` has a flag for each
 * @property {string[]} [only] build: run only these passes (comma-separated names)
 * @property {string[]} [skip] build: do not run these passes (comma-separated names)
 * @property {string[]} [origins] build: an absolute origin that is this site (`https://www.example.com`), so absolute links to it resolve to local files
 * @property {boolean} [force] build: write into a non-empty directory pagediet did not write
 * @property {{ index: number, count: number }} [shard] build: build only slice I of N (pages by a hash of their path, with every file they load), into an output the other shards share
 * @property {boolean} [cache] build: keep and use results of earlier builds (node_modules/.cache/pagediet)
 * @property {string} [cacheDir] build: where results are kept between builds (default node_modules/.cache/pagediet of the nearest package)
 * @property {number} [cacheLimit] build: MiB the cache is trimmed to after a build, least recently used first; it keeps what the build used, and as much again of older results, whatever this limit (default 512)
 * @property {number} [memoryBudget] build: MiB of file bytes kept in memory during the build; the rest wait in a scratch directory under $TMPDIR (default 64)
 * @property {number} [jobTimeout] build: stop an encode or OCR job that runs longer and leave its file as it is (0: no limit) (default 1800)
 * @property {number} [threads] build: worker threads (default: the machine's cores)
 * @property {number | string} [betweenVisits] build: the report's repeat visit comes this long after the first (30s, 10m, 2h, 1d, 1w, or seconds): what a browser's cache still holds fresh by then is not asked for (default "1d")
 * @property {number} [textImagesThreshold] text-images: the similarity (0-1) a text image's replacement must reach against the image in Chromium (default 0.8)
 * @property {'inline' | 'file'} [textImagesCss] text-images: where text-image replacements' CSS goes: a <style> in each page (inline), or one shared pagediet.css (file) (default "inline")
 * @property {boolean} [ocr] text-images: read text images whose ALT and TITLE are missing or wrong with OCR (tesseract.js)
 * @property {string} [browser] text-images, photos, image-markup, svg, fonts: a Chromium, Chrome or Edge executable to measure layout and prove changes in, tried before the browsers pagediet finds (see pagediet doctor)
 * @property {boolean} [prune] text-images, gif-to-png, animations, photos, hash-names: remove an original from the output once every reference points at its replacement (a converted image, a content-hashed name)
 * @property {boolean} [lossy] gif-to-png, animations, png: allow lossy image encodings (quantized PNG palettes, lossy WebP); without it every image stays pixel-exact
 * @property {[number, number]} [quality] gif-to-png, animations, png: with lossy: the quality floor a result must reach and the target, 0-100 on libimagequant's scale (default [65,80])
 * @property {number} [zopfliIterations] gif-to-png, animations, png: also try zopfli with this many iterations on PNG data: slower, sometimes a little smaller (0: libdeflate only) (default 0)
 * @property {number} [maxPixels] gif-to-png, animations, png, photos, image-markup: leave alone images with more pixels (decompression bombs) (default 100000000)
 * @property {'auto' | 'apng' | 'webp'} [animations] animations: what animated GIFs may become: apng, webp, or auto (the smaller of the two) (default "auto")
 * @property {boolean} [picture] animations: keep animated GIFs in <img> as the fallback of a <picture> with the new format
 * @property {number} [imageTimeBudget] animations: seconds of encoding an animated GIF may cost, estimated from its frames before any is written (the same on every run): the dearer of APNG and WebP is not tried when both would go over it, and the decision says so (0: no budget) (default 60)
 * @property {boolean} [lossless] photos: keep every lossy original (JPEG, lossy WebP, AVIF) as it is: no re-encoding, not even a visually identical one
 * @property {number} [photoScore] photos: the SSIMULACRA 2 score a re-encoded photograph must reach against its original (85: indistinguishable in a flip test at 1:1; 90: in a flicker test) (default 85)
 * @property {("avif" | "webp" | "jpeg")[]} [photoFormats] photos: the formats photographs may be re-encoded as (a photo's smaller widths are made in its own format too, as their fallback) (default ["avif","jpeg"])
 * @property {boolean} [responsive] photos: give photographs drawn smaller than they are stored smaller widths too (srcset and sizes from the layout Chromium measures)
 * @property {number} [svgPrecision] svg: digits svgo keeps after the point in SVG coordinates and numbers (fewer: smaller files, but fewer prove pixel-identical in Chromium and are kept) (default 8)
 * @property {boolean} [subsetFonts] fonts: also cut each web font down to the characters the pages show with it (read in Chromium): a WOFF2 subset with its unicode-range, and the full font kept for characters scripts add
 * @property {boolean} [htmlCaseBrotli] html-case: html-case also measures each changed page's brotli (quality 11) size before and after: 50 to 100 ms of CPU per 42 KB page
 * @property {boolean} [minifyHtml] minify-html: also run the minify-html pass: comments and whitespace that cannot render removed (off by default)
 * @property {'libdeflate' | 'zopfli' | 'zlib'} [gzip] precompress: encoder for the precompressed .gz files: libdeflate (level 12, quick), zopfli (about 1% smaller, tens of times slower) or zlib (level 9) (default "libdeflate")
 * @property {number} [gzipIterations] precompress: zopfli iterations for the .gz files with --gzip zopfli (the zopfli command's --i) (default 15)
 * @property {number} [brotliQuality] precompress: brotli quality of the .br files: 11 is the smallest; 10 takes about a third of the time for about 2% more bytes of HTML (default 11)
 * @property {boolean} [zstd] precompress: also write .zst files beside the .br and .gz (needs node 22.15 or newer: otherwise a warning)
 * @property {number} [precompressMinBytes] precompress: files smaller than this are not compressed (default 256)
 * @property {number} [precompressMinSaving] precompress: a sidecar that saves less than this percentage is not written (default 5)
 * @property {string | false} [configs] precompress: where the server configs go (default: <output>-configs/, beside the output, never inside it); --no-configs writes none
 */

export {};
