// A source link is shown only for an http or https URL: anything else (javascript:, data:, file:, a
// relative path) could run script or reach the person's machine when clicked.

/** The URL, normalised, when it is absolute http(s); otherwise undefined. */
export function safeHttpUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}
