// The MCP Apps view built from sources as `npm run build` builds it (scripts/build-view.mjs), once per
// test process, for servers started in the test (startTestServer({ viewerHtml })).
import { buildViewHtml } from '../../scripts/build-view.mjs';

let built: Promise<string> | undefined;

export function viewerHtml(): Promise<string> {
  built ??= buildViewHtml();
  return built;
}
