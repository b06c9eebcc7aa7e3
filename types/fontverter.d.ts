// Minimal declarations for the parts of fontverter that pagediet uses (the package ships no types).
declare module 'fontverter' {
  export type FontFormat = 'sfnt' | 'truetype' | 'woff' | 'woff2';
  /** The format by the font's signature; throws on an unknown one. */
  export function detectFormat(buffer: Buffer): 'sfnt' | 'woff' | 'woff2';
  /** The font in another container (sfnt tables unchanged; WOFF2 through wawoff2). */
  export function convert(buffer: Buffer, toFormat: FontFormat, fromFormat?: FontFormat): Promise<Buffer>;
}
