// The view ui://corpus-mcp/viewer: shows what search_documents, get_document and get_chunk returned to
// the model, and opens a passage in its document. It talks only to its host (App, over postMessage):
// every document it shows comes from a tool call the host makes, never from a request of its own.
import { App } from '@modelcontextprotocol/ext-apps';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { documentPane, windowAround } from './document-pane.js';
import type { OpenPassage } from './document-pane.js';
import { el } from './dom.js';
import { applyHostContext } from './host-style.js';
import { resultsList } from './results-list.js';
import { toolOutputOf } from './tool-results.js';
import type { DocumentPage, SearchResults } from './tool-results.js';

const app = new App({ name: 'corpus-mcp viewer', version: '1' }, {}, { autoResize: true });
const root = document.getElementById('app') ?? document.body;
let context: McpUiHostContext = {};
let results: SearchResults | undefined;

function show(node: HTMLElement): void {
  root.replaceChildren(node);
  node.dispatchEvent(new Event('pane-shown'));
}

/** Applies a change of the host's context; a new display mode moves the text, so the passage is brought back into view. */
function changeContext(change: McpUiHostContext): void {
  const moved = change.displayMode !== undefined && change.displayMode !== context.displayMode;
  context = { ...context, ...change };
  applyHostContext(change);
  if (moved) root.firstElementChild?.dispatchEvent(new Event('pane-shown'));
}

const message = (text: string, className = 'status') => el('p', className, text);

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map((block: { type?: unknown; text?: unknown }) => (block?.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('\n');
}

async function readDocument(source: string, offset: number, maxChars: number): Promise<DocumentPage> {
  const result = await app.callServerTool({ name: 'get_document', arguments: { source, offset, max_chars: maxChars } });
  if (result.isError) throw new Error(textOf(result.content) || `get_document failed for ${source}`);
  const page = toolOutputOf(result.structuredContent);
  if (page?.kind !== 'document') throw new Error(`get_document gave no document text for ${source}`);
  return page;
}

const openLink = (url: string) => void app.openLink({ url }).catch(() => undefined);

/** Fullscreen while a document is open, where the host offers it; inline otherwise. */
async function displayMode(mode: 'inline' | 'fullscreen'): Promise<void> {
  if (context.displayMode === mode || !(context.availableDisplayModes ?? []).includes(mode)) return;
  try {
    const granted = await app.requestDisplayMode({ mode });
    changeContext({ displayMode: granted.mode });
  } catch {
    // A host may refuse; the view works in either mode.
  }
}

function showResults(): void {
  if (results === undefined) return;
  show(resultsList(results, { open: (hit) => void openPassage(hit, true), openLink }));
  void displayMode('inline');
}

async function openPassage(passage: OpenPassage, fromResults: boolean): Promise<void> {
  if (fromResults) void displayMode('fullscreen');
  show(message(`Opening ${passage.source}…`));
  const { offset, maxChars } = windowAround(passage);
  try {
    const page = await readDocument(passage.source, offset, maxChars);
    show(documentPane(page, passage, { read: readDocument, openLink, ...(fromResults ? { back: showResults } : {}) }));
  } catch (error) {
    show(message(error instanceof Error ? error.message : String(error), 'status error'));
  }
}

app.onhostcontextchanged = changeContext;
app.ontoolinput = () => show(message('Waiting for the results…'));
app.ontoolresult = (result) => {
  if (result.isError) {
    show(message(textOf(result.content) || 'The tool call failed.', 'status error'));
    return;
  }
  const output = toolOutputOf(result.structuredContent);
  if (output === undefined) {
    show(message('Nothing to show for this result.'));
  } else if (output.kind === 'search') {
    results = output;
    showResults();
  } else if (output.kind === 'passage') {
    void openPassage(output, false);
  } else {
    show(documentPane(output, undefined, { read: readDocument, openLink }));
  }
};

show(message('Waiting for the results…'));
void app.connect().then(() => changeContext(app.getHostContext() ?? {}));
