/**
 * RGB and RGBA forms of one image, for the SSIMULACRA 2 tests.
 * @typedef {{ data: Uint8Array, width: number, height: number, channels: 3 | 4 }} Image
 */

/** @param {Image} image RGB @returns {Image} the same pixels as RGBA, every alpha 255 */
export function opaqueRgba(image) {
  const data = new Uint8Array(image.width * image.height * 4).fill(255);
  for (let i = 0, j = 0; i < image.data.length; i += 3, j += 4) data.set(image.data.subarray(i, i + 3), j);
  return { ...image, data, channels: 4 };
}

/** @param {Image} image RGBA @returns {Image} its colour samples as RGB, alpha dropped */
export function dropAlpha(image) {
  const data = new Uint8Array(image.width * image.height * 3);
  for (let i = 0, j = 0; j < data.length; i += 4, j += 3) data.set(image.data.subarray(i, i + 3), j);
  return { ...image, data, channels: 3 };
}
