// The host's look, applied to the view: its theme (light or dark), its CSS variables and fonts, and
// the safe-area insets of a phone's screen (as CSS variables the stylesheet pads the page with).
import { applyDocumentTheme, applyHostFonts, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps';

export function applyHostContext(context: McpUiHostContext): void {
  const root = document.documentElement;
  if (context.theme !== undefined) applyDocumentTheme(context.theme);
  if (context.styles?.variables !== undefined) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts !== undefined) applyHostFonts(context.styles.css.fonts);
  const insets = context.safeAreaInsets;
  if (insets !== undefined) {
    for (const side of ['top', 'right', 'bottom', 'left'] as const) root.style.setProperty(`--safe-${side}`, `${Math.max(0, insets[side])}px`);
  }
  if (context.displayMode !== undefined) root.dataset.display = context.displayMode;
}
