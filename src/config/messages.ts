// How a problem names a variable and its value.

/** One line per schema issue, naming the variable and its value (a URL's credentials and query hidden). */
export function issueProblems(issues: readonly { path: readonly PropertyKey[]; message: string }[], env: Readonly<Record<string, string | undefined>>): string[] {
  return issues.map((issue) => {
    const name = String(issue.path[0] ?? '?');
    return `${name}=${JSON.stringify(shownValue(env[name] ?? ''))}: ${issue.message}`;
  });
}

/** `value` as a message may quote it: a URL's user name, password and query string replaced by "…". */
export function shownValue(value: string): string {
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    return value;
  }
  if (u.username === '' && u.password === '' && u.search === '' && u.hash === '') return value;
  return `${u.protocol}//${u.username !== '' || u.password !== '' ? '…@' : ''}${u.host}${u.pathname}${u.search !== '' || u.hash !== '' ? '?…' : ''}`;
}
