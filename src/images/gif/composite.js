/**
 * Draws GIF frames onto an RGBA canvas as browsers do (palette lookup,
 * interlaced rows, the transparent index, clipping), and disposes of a
 * frame's rectangle by clearing or restoring it.
 */

/** @typedef {import('./structure.js').GifFrameInfo} GifFrameInfo */

/**
 * Source row for each destination row of a frame: interlaced frames store
 * rows 0, 8, 16..., then 4, 12..., then 2, 6..., then 1, 3...
 * @param {number} height
 * @param {boolean} interlaced
 * @returns {Uint32Array} destination row of the n-th stored row
 */
function rowOrder(height, interlaced) {
  const rows = new Uint32Array(height);
  if (!interlaced) {
    for (let i = 0; i < height; i++) rows[i] = i;
    return rows;
  }
  let n = 0;
  for (const [start, step] of [[0, 8], [4, 8], [2, 4], [1, 2]]) {
    for (let y = start; y < height; y += step) rows[n++] = y;
  }
  return rows;
}

/**
 * RGBA lookup for all 256 indices. Indices past the end of the palette, and
 * every index when there is no palette at all, are opaque black in Chromium
 * (Firefox wraps such indices around the palette instead).
 * @param {number[] | null} palette
 * @returns {Uint8Array}
 */
export function rgbaTable(palette) {
  const table = new Uint8Array(256 * 4);
  for (let i = 0; i < 256; i++) {
    const c = palette && i < palette.length ? palette[i] : 0;
    table[i * 4] = (c >> 16) & 255;
    table[i * 4 + 1] = (c >> 8) & 255;
    table[i * 4 + 2] = c & 255;
    table[i * 4 + 3] = 255;
  }
  return table;
}

/**
 * @typedef {{ data: Uint8Array, width: number, height: number }} Canvas RGBA
 */

/**
 * Draw a frame's indices onto the canvas: transparent-index pixels leave the
 * canvas as it is, pixels outside it are clipped.
 * @param {Canvas} canvas
 * @param {GifFrameInfo} frame
 * @param {Uint8Array} indices
 * @param {Uint8Array} colours rgbaTable of the frame's palette
 * @returns {void}
 */
export function blit(canvas, frame, indices, colours) {
  const rows = rowOrder(frame.height, frame.interlaced);
  const visibleWidth = Math.max(0, Math.min(frame.width, canvas.width - frame.left));
  const transparent = frame.transparentIndex ?? -1;
  for (let r = 0; r < frame.height; r++) {
    const y = frame.top + rows[r];
    if (y >= canvas.height) continue;
    let src = r * frame.width;
    let dst = (y * canvas.width + frame.left) * 4;
    for (let x = 0; x < visibleWidth; x++, src++, dst += 4) {
      const index = indices[src];
      if (index === transparent) continue;
      const k = index * 4;
      canvas.data[dst] = colours[k];
      canvas.data[dst + 1] = colours[k + 1];
      canvas.data[dst + 2] = colours[k + 2];
      canvas.data[dst + 3] = 255;
    }
  }
}

/**
 * The part of a frame's rectangle inside the canvas.
 * @param {Canvas} canvas
 * @param {GifFrameInfo} frame
 * @returns {{ x0: number, y0: number, x1: number, y1: number }}
 */
function clipRect(canvas, frame) {
  return { x0: Math.min(frame.left, canvas.width), y0: Math.min(frame.top, canvas.height), x1: Math.min(frame.left + frame.width, canvas.width), y1: Math.min(frame.top + frame.height, canvas.height) };
}

/**
 * Disposal 2: the frame's rectangle becomes transparent (browsers ignore the
 * background colour).
 * @param {Canvas} canvas
 * @param {GifFrameInfo} frame
 * @returns {void}
 */
export function clearRect(canvas, frame) {
  const { x0, y0, x1, y1 } = clipRect(canvas, frame);
  for (let y = y0; y < y1; y++) canvas.data.fill(0, (y * canvas.width + x0) * 4, (y * canvas.width + x1) * 4);
}

/**
 * Disposal 3: put back the frame's rectangle from a copy of the canvas taken
 * before the frame was drawn.
 * @param {Canvas} canvas
 * @param {Uint8Array} saved
 * @param {GifFrameInfo} frame
 * @returns {void}
 */
export function restoreRect(canvas, saved, frame) {
  const { x0, y0, x1, y1 } = clipRect(canvas, frame);
  for (let y = y0; y < y1; y++) {
    const from = (y * canvas.width + x0) * 4;
    const to = (y * canvas.width + x1) * 4;
    canvas.data.set(saved.subarray(from, to), from);
  }
}
