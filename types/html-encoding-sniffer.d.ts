// The part of html-encoding-sniffer (7.x) pagediet uses: the HTML standard's encoding sniffing of a byte stream.
declare module 'html-encoding-sniffer' {
  /** The canonical name of the encoding (e.g. 'UTF-8', 'windows-1252'). */
  export default function sniffHtmlEncoding(bytes: Uint8Array, options?: { xml?: boolean, transportLayerEncodingLabel?: string, defaultEncoding?: string, maxPrescanBytes?: number }): string;
}
