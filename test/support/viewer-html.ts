// The MCP Apps view built from sources as `npm run build` builds it (scripts/build-view.mjs), once per
// test process, for servers started in the test (startTestServer({ viewerHtml })).
import { buildLandingHostJs, buildViewHtml } from '../../scripts/build-view.mjs';

let built: Promise<string> | undefined;
let host: Promise<string> | undefined;

export function viewerHtml(): Promise<string> {
  built ??= buildViewHtml();
  return built;
}

/** The landing page's host of the view, built as `npm run build` builds it. */
export function landingHostJs(): Promise<string> {
  host ??= buildLandingHostJs();
  return host;
}
