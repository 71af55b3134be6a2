/** The MCP Apps view (src/view/) as one self-contained HTML document. */
export function buildViewHtml(): Promise<string>;
