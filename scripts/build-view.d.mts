/** The MCP Apps view (src/view/) as one self-contained HTML document. */
export function buildViewHtml(): Promise<string>;
/** The landing page's MCP Apps host (src/view/landing-host.ts) as one script. */
export function buildLandingHostJs(): Promise<string>;
