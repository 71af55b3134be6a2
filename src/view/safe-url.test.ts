import { describe, expect, it } from 'vitest';
import { safeHttpUrl } from './safe-url.js';

describe('safeHttpUrl', () => {
  it.each(['https://example.com/a b', 'http://127.0.0.1:8080/doc.md'])('keeps an http(s) URL: %s', (url) => {
    expect(safeHttpUrl(url)).toBe(new URL(url).href);
  });
  it.each(['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'data:text/html,<script>1</script>', 'file:///etc/passwd', '/relative/path', 'vbscript:x', '', undefined])(
    'refuses %s',
    (url) => {
      expect(safeHttpUrl(url)).toBeUndefined();
    },
  );
});
