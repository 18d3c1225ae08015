// The part of marked-terminal's API miniclaw uses (the package ships no types; @types/marked-terminal lags behind marked).
declare module "marked-terminal" {
  import type { MarkedExtension } from "marked";

  /** Style functions and layout options of the terminal renderer. */
  export interface TerminalRendererOptions {
    [style: string]: unknown;
    width?: number;
    reflowText?: boolean;
    tab?: number;
    emoji?: boolean;
    showSectionPrefix?: boolean;
    tableOptions?: Record<string, unknown>;
  }

  /** The renderer as a marked extension. */
  export function markedTerminal(options?: TerminalRendererOptions, highlightOptions?: Record<string, unknown>): MarkedExtension;
}
