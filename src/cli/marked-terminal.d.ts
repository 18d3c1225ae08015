// The part of marked-terminal's API miniclaw uses (the package ships no types; @types/marked-terminal lags behind marked).
declare module "marked-terminal" {
  import type { MarkedExtension } from "marked";

  /** The terminal renderer as a marked extension: style functions by element, and layout options (`width`, `reflowText`, `tab`, ...). */
  export function markedTerminal(options?: Record<string, unknown>, highlightOptions?: Record<string, unknown>): MarkedExtension;
}
