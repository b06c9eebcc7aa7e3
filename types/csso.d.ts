// Minimal declarations for the parts of csso that pagediet uses (the package ships no types).
declare module 'csso' {
  export interface ParseError { message: string; line: number; column: number }
  export type CssContext = 'stylesheet' | 'declarationList';
  export interface CompressOptions { restructure?: boolean; comments?: boolean | 'exclamation' | 'first-exclamation' }
  export const syntax: {
    /** css-tree's parser (csso's copy); onParseError is called for each part it cannot read. */
    parse(source: string, options: { context: CssContext; onParseError?: (error: ParseError) => void }): object;
    /** Transforms the tree in place and returns it. */
    compress(ast: object, options?: CompressOptions): { ast: object };
    generate(ast: object): string;
    /** Calls enter for every node of the tree. */
    walk(ast: object, options: { visit?: string; enter: (node: { type: string; property?: string }) => void }): void;
  };
  export function minify(source: string, options?: CompressOptions): { css: string };
  export function minifyBlock(source: string, options?: CompressOptions): { css: string };
}
