// Minimal declarations for the parts of css-tree that pagediet uses (the package ships no types).
declare module 'css-tree' {
  /** Calls onToken(type, start, end) for every token of the CSS source, offsets in UTF-16 code units. */
  export function tokenize(source: string, onToken: (type: number, start: number, end: number) => void): void;
  export const tokenTypes: {
    Ident: number; Function: number; AtKeyword: number; String: number; BadString: number;
    Url: number; BadUrl: number; WhiteSpace: number; Comment: number; LeftParenthesis: number;
    RightParenthesis: number; Semicolon: number; LeftCurlyBracket: number; RightCurlyBracket: number;
  };
  export const string: { decode(str: string): string; encode(str: string, apostrophe?: boolean): string };
  export const url: { decode(str: string): string; encode(str: string): string };
}
