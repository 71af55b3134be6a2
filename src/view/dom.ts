// The one way the view makes elements: tag, class and children, where a string child becomes a text
// node. Nothing in the view assigns innerHTML, so no text from a document or a host is parsed as markup.

type Child = Node | string | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className !== '') element.className = className;
  for (const child of children) if (child !== undefined && child !== false) element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return element;
}

export function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', className, label);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}
