// Minimal declarations for the parts of subset-font that pagediet uses (the package ships no types).
declare module 'subset-font' {
  export interface SubsetOptions {
    targetFormat?: 'sfnt' | 'truetype' | 'woff' | 'woff2';
    preserveNameIds?: number[];
    keepFeatures?: string[];
    noLayoutClosure?: boolean;
    noHinting?: boolean;
  }
  /** The font cut down to the glyphs of TEXT's characters (and those its layout features reach), with harfbuzz. */
  export default function subsetFont(font: Buffer, text: string, options?: SubsetOptions): Promise<Buffer>;
}
